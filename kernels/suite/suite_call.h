/* The one entry point every suite runner calls: socratic-runner-suite cannot call the typed
   signatures of many definitions, so the host compiles, beside the candidate, an adapter
   (include/socratic/suite/suite_adapter.hpp generates it) that unpacks this struct and calls the candidate's
   typed entry point (the header of `socratic problem header`). Plain C: the adapter, the candidate
   and the runner all include it. */
#ifndef SOCRATIC_SUITE_CALL_H
#define SOCRATIC_SUITE_CALL_H

#include <stdint.h>
#include <cuda_runtime.h>

/* A Python scalar input: its value as the definition's dtype, in the member that holds it. */
typedef struct socratic_suite_scalar {
  double real;      /* floating-point scalars */
  int64_t integer;  /* integer and bool scalars */
} socratic_suite_scalar;

typedef struct socratic_suite_call {
  const void* const* inputs;            /* tensor inputs, in the definition's order (scalars skipped) */
  void* const* outputs;                 /* outputs, in the definition's order */
  const socratic_suite_scalar* scalars; /* scalar inputs, in the definition's order */
  const int64_t* var_axes;              /* the var axes' values, in the definition's order */
  int input_count, output_count, scalar_count, var_axis_count; /* checked by the adapter */
} socratic_suite_call;

#define SOCRATIC_SUITE_ENTRY "socratic_suite_entry"

#ifdef __cplusplus
extern "C"
#endif
    int socratic_suite_entry(const socratic_suite_call* call, cudaStream_t stream);

#endif
