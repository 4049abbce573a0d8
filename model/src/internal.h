/*
 * internal.h - what the model library's translation units share: the public API plus the
 * helpers of atomutil/util.h (error slot, parsing, file reading).  Not installed.
 */
#ifndef ATOMUTIL_MODEL_INTERNAL_H
#define ATOMUTIL_MODEL_INTERNAL_H

#include "atomutil/model.h"
#include "atomutil/util.h"

#endif
