// The HTTP client's definitions, compiled once for the whole test program
// (SOCRATIC_SEPARATE_COMPILATION): the other test files include no Beast.
#include "socratic/http/src.hpp"
