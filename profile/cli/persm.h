/*
 * persm.h - atomutil-profile's per-SM mode (docs/per-sm.md): disassembling the captured cubins and
 * attaching per-SM, per-instruction results from the SASS file to the launches of a report.
 */
#ifndef ATOMUTIL_PROFILE_PERSM_H
#define ATOMUTIL_PROFILE_PERSM_H

#include "atomutil/model.h"

/* Writes DIR/<crc>.sass next to every DIR/<crc>.cubin (nvdisasm -g, else cuobjdump -sass, from
 * $CUDA_HOME/bin, /usr/local/cuda/bin or PATH).  Returns the number of cubins that could not be
 * disassembled (their instructions stay of unknown opcode). */
int au_persm_disassemble(const char *dir, int quiet);

/* Attaches per-SM results to the evaluated launches of rep from the SASS file and the listings in
 * cubin_dir.  Launches are matched by process (in order of appearance) and launch id, and must
 * have the same kernel.  Returns AU_OK or < 0 (au_last_error()). */
int au_persm_attach(au_report *rep, const au_table *t, const char *sass_path, const char *cubin_dir,
                    int quiet);

#endif
