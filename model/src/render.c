/*
 * render.c - au_report_render: the report in the format asked for, by one renderer of its own file
 * (render_table.c, render_csv.c, render_json.c), which take what they share from report.c.
 */
#include "render.h"

#include "internal.h"

int au_report_render(const au_report *r, au_format fmt, FILE *out)
{
    if (!r || !out)
        return au_set_error(AU_E_INVAL, "au_report_render: invalid argument");
    switch (fmt) {
    case AU_FMT_TABLE: au_render_table(r, out); break;
    case AU_FMT_CSV: au_render_csv(r, out); break;
    case AU_FMT_JSON: au_render_json(r, out); break;
    default: return au_set_error(AU_E_INVAL, "au_report_render: unknown format");
    }
    if (ferror(out))
        return au_set_error(AU_E_IO, "write error on output");
    return AU_OK;
}
