/*
 * banned: the C library's functions lkprobot does not call, made compile
 * errors, as git's banned.h does: each is easy to misuse (no bound on what
 * it writes, hidden static state, a static result) and a safe form is at
 * hand — strbuf or snprintf for the string ones, strtok_r, gmtime_r,
 * localtime_r and strftime. The Makefile includes it first in every file
 * it compiles (-include), after the C library's own declarations.
 */
#ifndef LKP_BANNED_H
#define LKP_BANNED_H

/* their declarations first, so the macros below never rewrite them */
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#undef asctime
#define asctime(t) BANNED(asctime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)

#endif
