"""libatomutil.so, found and loaded with ctypes, and its calls (the C ABI of profile/api/abi.h).

The library is looked for, in this order: $ATOMUTIL_LIB (its path, nothing else then); beside
this package; the prefix this package is installed in by `cmake --install`
(PREFIX/share/atomutil/python/atomutil -> PREFIX/<libdir>/atomutil/); the prefix of the
`atomutil-profile` on PATH; sys.prefix, /usr/local and /usr.  It is loaded on first use, so that
`import atomutil` never fails.
"""

import ctypes
import os
import shutil
import sys
import sysconfig
import threading

ABI_VERSION = 1
LIB_NAME = "libatomutil.so"


class AtomutilError(Exception):
    """A failure of atomutil's library: the message is its one line, status its status (< 0:
    -1 I/O, -2 malformed input, -3 out of memory, -4 invalid argument, -5 no table or family; 0 for
    a library that cannot be found or loaded)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status


_lock = threading.Lock()
_lib = None
_path = None


def _multiarch():
    # Nsight Compute's embedded Python lacks sysconfig's data module: the first call raises there
    try:
        return sysconfig.get_config_var("MULTIARCH")
    except Exception:
        return getattr(sys.implementation, "_multiarch", None)


def _libdirs():
    dirs = ["lib", "lib64"]
    multiarch = _multiarch()
    if multiarch:
        dirs.append("lib/" + multiarch)
    return dirs


def candidates():
    """The paths tried for the library, in order."""
    env = os.environ.get("ATOMUTIL_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(here, LIB_NAME)]
    prefixes = [os.path.normpath(os.path.join(here, "..", "..", "..", ".."))]
    exe = shutil.which("atomutil-profile")
    if exe:
        prefixes.append(os.path.dirname(os.path.dirname(os.path.realpath(exe))))
    prefixes += [sys.prefix, "/usr/local", "/usr"]
    for prefix in prefixes:
        for libdir in _libdirs():
            paths.append(os.path.join(prefix, libdir, "atomutil", LIB_NAME))
    seen = set()
    return [p for p in paths if not (p in seen or seen.add(p))]


def _declare(lib):
    c_int, c_char_p, c_void_p, c_double, c_size_t = (ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p,
                                                     ctypes.c_double, ctypes.c_size_t)
    out = ctypes.POINTER(c_void_p)
    protos = {
        "au_abi_version": (c_int, []),
        "au_abi_atomutil_version": (c_char_p, []),
        "au_abi_table_load": (c_int, [c_char_p, out, out]),
        "au_abi_table_find": (c_int, [c_char_p, c_int, c_int, out, out]),
        "au_abi_table_info": (c_int, [c_void_p, out, out]),
        "au_abi_table_free": (None, [c_void_p]),
        "au_abi_metrics": (c_int, [out, out]),
        "au_abi_evaluate": (c_int, [c_void_p, ctypes.POINTER(c_char_p), ctypes.POINTER(c_double), c_size_t,
                                    c_char_p, c_int, c_int, c_char_p, c_char_p, c_char_p, c_double, c_double,
                                    out, out]),
        "au_abi_evaluate_code": (c_int, [c_void_p, ctypes.POINTER(c_char_p), ctypes.POINTER(c_double), c_size_t,
                                         c_char_p, c_int, c_int, c_char_p, ctypes.POINTER(c_char_p),
                                         ctypes.POINTER(c_double), c_size_t, c_char_p, c_char_p, c_double, c_double,
                                         out, out]),
        "au_abi_read": (c_int, [c_char_p, c_void_p, c_char_p, c_char_p, c_double, c_double, c_int, out, out]),
        "au_abi_free": (None, [c_void_p]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def _load():
    tried = []
    for path in candidates():
        if not os.path.isfile(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
            _declare(lib)
        except (OSError, AttributeError) as e:
            raise AtomutilError("%s: cannot be loaded: %s" % (path, e)) from e
        abi = lib.au_abi_version()
        if abi != ABI_VERSION:
            raise AtomutilError("%s has ABI %d, this package needs %d: install the package and the library of "
                                "one atomutil" % (path, abi, ABI_VERSION))
        return lib, path
    raise AtomutilError("%s not found (looked for %s); install atomutil (cmake --install BUILD), put its "
                        "atomutil-profile on PATH, or set ATOMUTIL_LIB to the library's path"
                        % (LIB_NAME, ", ".join(tried)))


def lib():
    """The loaded library (AtomutilError when it cannot be found or loaded)."""
    global _lib, _path
    with _lock:
        if _lib is None:
            _lib, _path = _load()
        return _lib


def path():
    """The path of the loaded library."""
    lib()
    return _path


def encode(s):
    """A str (or path) as the C string the library takes; None stays NULL."""
    if s is None:
        return None
    return os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode("utf-8", "surrogateescape")


def _take(p):
    if not p.value:
        return None
    try:
        return ctypes.string_at(p.value).decode("utf-8", "replace")
    finally:
        lib().au_abi_free(p)


def call(fn_name, *args, handle=False):
    """Calls fn_name(*args, &out, &error): the text of out (the handle where handle), or
    AtomutilError with the library's message."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    status = getattr(lib(), fn_name)(*args, ctypes.byref(out), ctypes.byref(err))
    message = _take(err)
    if status != 0:
        raise AtomutilError(message or "%s failed with status %d" % (fn_name, status), status)
    return out.value if handle else _take(out)
