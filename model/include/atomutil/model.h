/*
 * atomutil/model.h - the public header of atomutil's model library (pure C11, no CUDA), one
 * umbrella over its layers:
 *   atomutil/errors.h  version, error statuses, au_last_error()
 *   atomutil/table.h   the service-time table S(family, n, a, c): load, check, write, interpolate, pick
 *   atomutil/queue.h   counters, the family registry, the queue model, verdicts
 *   atomutil/report.h  launches and reports, and their renderers (human table, CSV, JSON)
 *   atomutil/select.h  which launches are measured and reported (-k, --launch-skip, ...)
 * Nothing here calls exit(): every fallible function returns AU_OK (0) or a negative au_status and
 * leaves a one-line description in au_last_error().
 */
#ifndef ATOMUTIL_MODEL_H
#define ATOMUTIL_MODEL_H

#include "atomutil/errors.h"
#include "atomutil/table.h"
#include "atomutil/queue.h"
#include "atomutil/advisor.h"
#include "atomutil/report.h"
#include "atomutil/select.h"

#endif
