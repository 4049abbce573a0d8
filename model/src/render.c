/*
 * render.c - au_report_render: the report in the format and view asked for (every launch, or one
 * row per kernel: --summary, and the human table's default above AU_SUMMARY_AUTO_LAUNCHES
 * launches), by one renderer per format (render_table.c, render_csv.c, render_json.c), which take
 * what they share from report.c and the kernels from summary.c.
 */
#include "render.h"

#include "internal.h"

/* Renders r in fmt, the view decided; the kernels grouped once for the tables' names and the
 * summary. */
static int render_view(const au_report *r, au_format fmt, int summary, FILE *out)
{
    if (!summary && fmt == AU_FMT_CSV) {
        au_render_csv(r, out);
        return AU_OK;
    }
    if (!summary && fmt == AU_FMT_JSON) {
        au_render_json(r, out);
        return AU_OK;
    }
    au_summary s;
    int rc = au_summary_make(r, &s);
    if (rc == AU_OK && summary)
        rc = au_summary_sort_by_time(&s);
    if (rc == AU_OK) {
        if (fmt == AU_FMT_TABLE)
            rc = au_render_table(r, &s, summary, out);
        else if (fmt == AU_FMT_CSV)
            rc = au_render_summary_csv(r, &s, out);
        else
            rc = au_render_summary_json(r, &s, out);
    }
    au_summary_free(&s);
    return rc;
}

int au_report_render(const au_report *r, au_format fmt, FILE *out)
{
    if (!r || !out)
        return au_set_error(AU_E_INVAL, "au_report_render: invalid argument");
    if (fmt != AU_FMT_TABLE && fmt != AU_FMT_CSV && fmt != AU_FMT_JSON)
        return au_set_error(AU_E_INVAL, "au_report_render: unknown format");
    int summary = r->view == AU_VIEW_SUMMARY ||
                  (r->view == AU_VIEW_AUTO && fmt == AU_FMT_TABLE && r->count > AU_SUMMARY_AUTO_LAUNCHES);
    int rc = render_view(r, fmt, summary, out);
    if (rc != AU_OK)
        return rc;
    if (ferror(out))
        return au_set_error(AU_E_IO, "write error on output");
    return AU_OK;
}
