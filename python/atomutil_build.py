"""The build backend of the Python package atomutil (PEP 517 and PEP 660, standard library only):
pip builds its wheel without downloading a build tool, so `pip install ./python` works offline.

The wheel holds the package's pure-Python files (atomutil/*.py) and its metadata; the C library
they load (libatomutil.so) is installed by `cmake --install` and found at run time (docs/python.md).
"""

import base64
import hashlib
import os
import re
import zipfile

NAME = "atomutil"
SUMMARY = "Is the shared-memory atomic unit the bottleneck of this kernel? (Python API of atomutil)"
HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "py3-none-any"


def _version():
    with open(os.path.join(HERE, NAME, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError("atomutil/__init__.py has no __version__ line")
    return m.group(1)


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: >=3.6\n"
            % (NAME, version, SUMMARY))


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(wheel_directory, files):
    """A wheel of files [(name in the wheel, bytes)] plus its dist-info; its file name."""
    version = _version()
    dist = "%s-%s.dist-info" % (NAME, version)
    wheel = "Wheel-Version: 1.0\nGenerator: atomutil_build\nRoot-Is-Purelib: true\nTag: %s\n" % TAG
    files = list(files) + [(dist + "/METADATA", _metadata(version).encode()), (dist + "/WHEEL", wheel.encode())]
    record = [_record_line(name, data) for name, data in files] + [dist + "/RECORD,,"]
    files.append((dist + "/RECORD", ("\n".join(record) + "\n").encode()))
    filename = "%s-%s-%s.whl" % (NAME, version, TAG)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def _package_files():
    pkg = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                yield "%s/%s" % (NAME, name), f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file that puts this folder on sys.path."""
    return _write_wheel(wheel_directory, [(NAME + ".pth", (HERE + "\n").encode())])
