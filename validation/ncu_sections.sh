#!/usr/bin/env bash
# Prints the folder of Nsight Compute's own sections (the one holding SourceCounters.section), which
# a run with --section-folder needs named again since that option replaces it:
#
#   validation/ncu_sections.sh NCU
#
# NCU_SECTIONS wins when set; else the folder ncu --list-sections names, beside ncu, under
# /opt/nvidia/nsight-compute/*/sections, or in the user's "Documents/NVIDIA Nsight Compute".
# Exit status 1, with one line on stderr, when none holds the section.
ncu=${1:?usage: ncu_sections.sh NCU}
secs=${NCU_SECTIONS:-}
if [ -z "$secs" ]; then
    f=$("$ncu" --list-sections 2> /dev/null | grep -o '/[^ ]*SourceCounters\.section' | head -n 1)
    for d in "${f%/*}" "$(dirname "$(readlink -f "$ncu")")/sections" /opt/nvidia/nsight-compute/*/sections \
        "$HOME/Documents/NVIDIA Nsight Compute/"*/Sections; do
        [ -f "$d/SourceCounters.section" ] && { secs=$d; break; }
    done
fi
if [ ! -f "$secs/SourceCounters.section" ]; then
    echo "ncu_sections: no sections folder of $ncu found: put it in NCU_SECTIONS (ncu --list-sections)" >&2
    exit 1
fi
echo "$secs"
