/* ==== [tc:lex] Lexer: source bytes to tokens, each with its span ========== */
#include <float.h>
#include <stdlib.h> /* strtod */

/* Tokens never span lines (comments are skipped), so a span's line and
   column are those of its first byte. */
typedef struct tc__token {
    tc__tok kind;
    tc__span span;
    int64_t ival; /* INT */
    double fval;  /* FLOAT: the literal correctly rounded to double */
} tc__token;

typedef struct tc__lexer {
    tc__ctx *C;
    const char *src;
    size_t len, pos, line_start;
    int line;
    tc__tok prev; /* last token's kind: '.' right after a name is T.d, not .5 */
    int quiet;    /* a lookahead copy: errors end the scan without reporting */
} tc__lexer;

TC__PRIVATE void tc__lex_init(tc__lexer *L, tc__ctx *C) {
    memset(L, 0, sizeof *L);
    L->C = C;
    L->src = C->src;
    L->len = C->src ? C->src_len : 0;
    L->line = 1;
    L->prev = TC__T_EOF;
}

/* The byte at i, or -1 past the end: the lexer never reads beyond len. */
TC__PRIVATE int tc__lex_at(const tc__lexer *L, size_t i) {
    return i < L->len ? (unsigned char)L->src[i] : -1;
}
/* ASCII classes (no <ctype.h>: its answers depend on the locale). */
TC__PRIVATE int tc__lex_is_digit(int c) { return c >= '0' && c <= '9'; }
TC__PRIVATE int tc__lex_is_hex(int c) {
    return tc__lex_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
TC__PRIVATE int tc__lex_is_alpha(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
TC__PRIVATE int tc__lex_is_word(int c) { return tc__lex_is_alpha(c) || tc__lex_is_digit(c); }

TC__PRIVATE tc__span tc__lex_span(const tc__lexer *L, size_t start, size_t end) {
    tc__span s;
    s.line = L->line;
    s.col = (int)(start - L->line_start) + 1;
    s.offset = (int)start;
    s.length = (int)(end - start);
    return s;
}

/* Reports a lexical error on [start, end) and turns the token into EOF, so
   the parser unwinds. Returns 0. */
TC__PRIVATE int tc__lex_error(tc__lexer *L, tc__token *t, size_t start, size_t end,
                              const char *fmt, ...) {
    va_list ap;
    char msg[200];
    t->kind = TC__T_EOF;
    t->span = tc__lex_span(L, start, end);
    L->pos = L->len;
    if (L->quiet) return 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tc__fail(L->C, TC_ERR_SYNTAX, t->span, "%s", msg);
}

/* space -> { ' ' | '\t' | '\r' | '\n' | '\f' | '\v' | comment }
 * comment -> ('#' | '//') { any byte but '\n' } */
TC__PRIVATE void tc__lex_skip_space(tc__lexer *L) {
    for (;;) {
        int c = tc__lex_at(L, L->pos);
        if (c == '\n') {
            L->pos++;
            L->line++;
            L->line_start = L->pos;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            L->pos++;
        } else if (c == '#' || (c == '/' && tc__lex_at(L, L->pos + 1) == '/')) {
            while (L->pos < L->len && L->src[L->pos] != '\n') L->pos++;
        } else {
            return;
        }
    }
}

/* The value of a decimal float literal s[0..n) (no suffix), correctly
   rounded: the digits are rewritten as an integer mantissa and a decimal
   exponent ("1.25e3" -> "125e1") so strtod never sees the locale's decimal
   point. 780 significant digits plus a sticky digit decide every double. */
TC__PRIVATE double tc__lex_float_value(const char *s, size_t n) {
    char buf[800];
    size_t i, k = 0;
    long exp10 = 0, e = 0, esign = 1;
    int after_dot = 0, sticky = 0;
    for (i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            after_dot = 1;
            continue;
        }
        if (after_dot) exp10--;
        if (k == 0 && s[i] == '0') continue; /* leading zeros */
        if (k < 780) {
            buf[k++] = s[i];
        } else {
            exp10++;
            if (s[i] != '0') sticky = 1;
        }
    }
    if (i < n) { /* exponent, saturated: 1e999999 is simply too large */
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) esign = s[i++] == '-' ? -1 : 1;
        for (; i < n; i++)
            if (e < 1000000) e = e * 10 + (s[i] - '0');
    }
    if (k == 0) return 0.0;
    if (sticky) {
        buf[k++] = '1';
        exp10--;
    }
    exp10 += esign * e;
    snprintf(buf + k, sizeof buf - k, "e%ld", exp10);
    return strtod(buf, NULL);
}

/* hex -> '0' ('x' | 'X') hexdigit {hexdigit} */
TC__PRIVATE int tc__lex_hex(tc__lexer *L, tc__token *t, size_t start) {
    size_t p = start + 2;
    uint64_t v = 0;
    int overflow = 0;
    while (tc__lex_is_hex(tc__lex_at(L, p))) {
        int c = tc__lex_at(L, p++);
        unsigned d = (unsigned)(tc__lex_is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        if (v > ((uint64_t)INT64_MAX - d) / 16) overflow = 1;
        else v = v * 16 + d;
    }
    if (tc__lex_is_word(tc__lex_at(L, p)) || p == start + 2) {
        while (tc__lex_is_word(tc__lex_at(L, p))) p++;
        return tc__lex_error(L, t, start, p, "invalid hexadecimal number '%.*s'",
                             (int)(p - start), L->src + start);
    }
    if (overflow)
        return tc__lex_error(L, t, start, p, "integer %.*s does not fit in 64 bits",
                             (int)(p - start), L->src + start);
    t->kind = TC__T_INT;
    t->ival = (int64_t)v;
    t->span = tc__lex_span(L, start, p);
    L->pos = p;
    return 1;
}

/* A decimal integer's value; 0 on overflow of int64. */
TC__PRIVATE int tc__lex_decimal(const char *s, size_t n, int64_t *out) {
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = (int64_t)v;
    return 1;
}

/* number   -> hex | digits | digits exponent [suffix]
 *           | digits '.' [digits] [exponent] [suffix] | '.' digits [exponent] [suffix]
 * exponent -> ('e' | 'E') ['+' | '-'] digits        suffix -> 'f' | 'F' */
TC__PRIVATE int tc__lex_number(tc__lexer *L, tc__token *t, size_t start) {
    size_t p = start, mant_end;
    int is_float = 0;
    const char *s = L->src + start;
    if (tc__lex_at(L, p) == '0' && (tc__lex_at(L, p + 1) | 0x20) == 'x')
        return tc__lex_hex(L, t, start);
    while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
    if (tc__lex_at(L, p) == '.') {
        is_float = 1;
        p++;
        while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
    }
    if ((tc__lex_at(L, p) | 0x20) == 'e') {
        size_t q = p + 1;
        if (tc__lex_at(L, q) == '+' || tc__lex_at(L, q) == '-') q++;
        if (tc__lex_is_digit(tc__lex_at(L, q))) {
            is_float = 1;
            p = q;
            while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
        }
    }
    mant_end = p;
    if (is_float && (tc__lex_at(L, p) | 0x20) == 'f') p++;
    if (tc__lex_is_word(tc__lex_at(L, p))) {
        int c = tc__lex_at(L, p) | 0x20;
        const char *why = c == 'e'                ? " (the exponent has no digits)"
                          : c == 'f' && !is_float ? " (a float needs '.' or an exponent: 1.0f)"
                                                  : " (a name cannot start with a digit)";
        while (tc__lex_is_word(tc__lex_at(L, p))) p++;
        return tc__lex_error(L, t, start, p, "invalid number '%.*s'%s", (int)(p - start), s,
                             why);
    }
    t->span = tc__lex_span(L, start, p);
    if (is_float) {
        t->kind = TC__T_FLOAT;
        t->fval = tc__lex_float_value(s, mant_end - start);
        if (t->fval > (double)FLT_MAX)
            return tc__lex_error(L, t, start, p, "number %.*s is too large for float32",
                                 (int)(p - start), s);
    } else {
        t->kind = TC__T_INT;
        if (p - start > 1 && s[0] == '0')
            return tc__lex_error(L, t, start, p,
                                 "number %.*s starts with 0 (octal literals are not supported)",
                                 (int)(p - start), s);
        if (!tc__lex_decimal(s, p - start, &t->ival))
            return tc__lex_error(L, t, start, p, "integer %.*s does not fit in 64 bits",
                                 (int)(p - start), s);
    }
    L->pos = p;
    return 1;
}

/* word -> alpha {alpha | digit}: a name, a keyword (def where in exists),
 *         or 'min=' / 'max=' [ '!' ] when '=' follows at once and is not '==' */
TC__PRIVATE int tc__lex_word(tc__lexer *L, tc__token *t, size_t start) {
    static const struct {
        const char *text;
        tc__tok kind;
    } keywords[] = {{"def", TC__T_DEF},
                    {"where", TC__T_WHERE},
                    {"in", TC__T_IN},
                    {"exists", TC__T_EXISTS}};
    size_t p = start, n, i;
    const char *s = L->src + start;
    while (tc__lex_is_word(tc__lex_at(L, p))) p++;
    n = p - start;
    t->kind = TC__T_IDENT;
    for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].text) == n && memcmp(keywords[i].text, s, n) == 0)
            t->kind = keywords[i].kind;
    if (n == 3 && (memcmp(s, "min", 3) == 0 || memcmp(s, "max", 3) == 0) &&
        tc__lex_at(L, p) == '=' && tc__lex_at(L, p + 1) != '=') {
        int is_min = s[1] == 'i', init = tc__lex_at(L, p + 1) == '!';
        t->kind = is_min ? (init ? TC__T_MIN_EQ_B : TC__T_MIN_EQ)
                         : (init ? TC__T_MAX_EQ_B : TC__T_MAX_EQ);
        p += (size_t)(1 + init);
    }
    t->span = tc__lex_span(L, start, p);
    L->pos = p;
    return 1;
}

/* The token of one punctuation byte c followed by `next`, and its length. */
TC__PRIVATE tc__tok tc__lex_punct_kind(int c, int next, int next2, size_t *len) {
    *len = 1;
    switch (c) {
    case '(': return TC__T_LPAREN;
    case ')': return TC__T_RPAREN;
    case '{': return TC__T_LBRACE;
    case '}': return TC__T_RBRACE;
    case '[': return TC__T_LBRACKET;
    case ']': return TC__T_RBRACKET;
    case ',': return TC__T_COMMA;
    case '.': return TC__T_DOT;
    case ':': return TC__T_COLON;
    case ';': return TC__T_SEMI;
    case '?': return TC__T_QUESTION;
    case '/': return TC__T_SLASH;
    case '%': return TC__T_PERCENT;
    case '-':
        if (next == '>') *len = 2;
        return next == '>' ? TC__T_ARROW : TC__T_MINUS;
    case '+':
    case '*':
        if (next != '=') return c == '+' ? TC__T_PLUS : TC__T_STAR;
        *len = next2 == '!' ? 3 : 2;
        if (c == '+') return next2 == '!' ? TC__T_PLUS_EQ_B : TC__T_PLUS_EQ;
        return next2 == '!' ? TC__T_TIMES_EQ_B : TC__T_TIMES_EQ;
    case '=': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_EQ : TC__T_ASSIGN;
    case '!': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_NE : TC__T_NOT;
    case '<': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_LE : TC__T_LT;
    case '>': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_GE : TC__T_GT;
    case '&': *len = next == '&' ? 2 : 0; return TC__T_AND;
    case '|': *len = next == '|' ? 2 : 0; return TC__T_OR;
    default: *len = 0; return TC__T_EOF;
    }
}

TC__PRIVATE int tc__lex_punct(tc__lexer *L, tc__token *t, size_t start) {
    int c = tc__lex_at(L, start);
    size_t len;
    tc__tok kind = tc__lex_punct_kind(c, tc__lex_at(L, start + 1), tc__lex_at(L, start + 2), &len);
    if (len == 0) {
        if (c == '&' || c == '|')
            return tc__lex_error(L, t, start, start + 1,
                                 "unexpected character '%c' (did you mean '%c%c'?)", c, c, c);
        if (c > 32 && c < 127)
            return tc__lex_error(L, t, start, start + 1, "unexpected character '%c'", c);
        return tc__lex_error(L, t, start, start + 1, "unexpected character (byte 0x%02X)",
                             (unsigned)c);
    }
    t->kind = kind;
    t->span = tc__lex_span(L, start, start + len);
    L->pos = start + len;
    return 1;
}

/* Scans the next token into t. At the end, and once the compile has failed,
   the token is EOF. Returns 0 after a lexical error. */
TC__PRIVATE int tc__lex_next(tc__lexer *L, tc__token *t) {
    size_t start;
    int c, ok;
    memset(t, 0, sizeof *t);
    tc__lex_skip_space(L);
    start = L->pos;
    t->kind = TC__T_EOF;
    t->span = tc__lex_span(L, start, start);
    if (L->C->failed && !L->quiet) return 0;
    if (start >= L->len) return 1;
    c = tc__lex_at(L, start);
    if (tc__lex_is_digit(c) ||
        (c == '.' && tc__lex_is_digit(tc__lex_at(L, start + 1)) && L->prev != TC__T_IDENT))
        ok = tc__lex_number(L, t, start);
    else if (tc__lex_is_alpha(c))
        ok = tc__lex_word(L, t, start);
    else
        ok = tc__lex_punct(L, t, start);
    L->prev = t->kind;
    return ok;
}

/* ==== [tc:parse] Parser: tokens to the AST of [tc:ast] =====================
   Recursive descent, one token of lookahead plus two bounded scans ahead
   (tc__parse_peek, tc__parse_is_call) done on a copy of the lexer. Every
   function returns NULL / 0 once the compile has failed (sticky: the first
   error wins), so the recursion unwinds without longjmp. Expression nesting
   (parentheses, unary chains, ?: chains, call arguments) is bounded by
   C->max_depth; binary chains are loops, not recursion. */

typedef struct tc__parser {
    tc__ctx *C;
    tc__lexer L;   /* positioned just after tok */
    tc__token tok; /* the current token */
    tc__span last; /* the last token consumed: spans end there */
    int depth, max_depth;
    tc__ast *ast; /* defs parsed so far: `a = f(x)` calls an earlier def */
    int cap_defs;
} tc__parser;

TC__PRIVATE void tc__parse_next(tc__parser *P) {
    P->last = P->tok.span;
    tc__lex_next(&P->L, &P->tok);
}
TC__PRIVATE int tc__parse_accept(tc__parser *P, tc__tok kind) {
    if (P->C->failed || P->tok.kind != kind) return 0;
    tc__parse_next(P);
    return 1;
}
/* The kind of the token after the current one (lexed on a quiet copy). */
TC__PRIVATE tc__tok tc__parse_peek(const tc__parser *P) {
    tc__lexer L = P->L;
    tc__token t;
    L.quiet = 1;
    tc__lex_next(&L, &t);
    return t.kind;
}

/* From the start of `a` to the end of `b`. */
TC__PRIVATE tc__span tc__span_join(tc__span a, tc__span b) {
    a.length = b.offset + b.length - a.offset;
    return a;
}
TC__PRIVATE tc__span tc__parse_span_from(const tc__parser *P, tc__span start) {
    return tc__span_join(start, P->last);
}

/* How a token reads in a message: 'text' (at most 40 bytes) or "end of input". */
TC__PRIVATE const char *tc__parse_describe(const tc__parser *P, const tc__token *t, char *buf,
                                           size_t cap) {
    int n = t->span.length > 40 ? 40 : t->span.length;
    if (t->kind == TC__T_EOF) return "end of input";
    snprintf(buf, cap, "'%.*s%s'", n, P->C->src + t->span.offset,
             t->span.length > 40 ? "..." : "");
    return buf;
}

/* Fails with `code` at the current token: "<fmt>, found <token>". */
TC__PRIVATE int tc__parse_error_found(tc__parser *P, tc_status code, const char *fmt, ...) {
    va_list ap;
    char msg[200], found[64];
    if (P->C->failed) return 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tc__fail(P->C, code, P->tok.span, "%s, found %s", msg,
                    tc__parse_describe(P, &P->tok, found, sizeof found));
}

/* Consumes a token of `kind` or fails: "expected ')' <why>, found '}'". */
TC__PRIVATE int tc__parse_expect(tc__parser *P, tc__tok kind, const char *why, ...) {
    va_list ap;
    char msg[160];
    if (tc__parse_accept(P, kind)) return 1;
    if (P->C->failed) return 0;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    return tc__parse_error_found(P, TC_ERR_SYNTAX, "expected '%s'%s%s", tc__tok_text[kind],
                                 msg[0] ? " " : "", msg);
}

/* After a list item: ',' gives 1 (another item follows), ')' gives 0 (the
   list is closed); anything else fails: "expected ',' or ')' <why>". */
TC__PRIVATE int tc__parse_list_more(tc__parser *P, const char *why, ...) {
    va_list ap;
    char msg[160];
    if (tc__parse_accept(P, TC__T_COMMA)) return 1;
    if (tc__parse_accept(P, TC__T_RPAREN) || P->C->failed) return 0;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    tc__parse_error_found(P, TC_ERR_SYNTAX, "expected ',' or ')' %s", msg);
    return 0;
}

/* An arena copy of the current token's text, then advances. */
TC__PRIVATE const char *tc__parse_take_name(tc__parser *P, tc__span *span) {
    const char *name = tc__strndup(P->C, P->C->src + P->tok.span.offset,
                                   (size_t)P->tok.span.length);
    if (span) *span = P->tok.span;
    tc__parse_next(P);
    return name;
}
/* Consumes a name or fails: "expected <what>, found ...". */
TC__PRIVATE const char *tc__parse_name(tc__parser *P, tc__span *span, const char *what) {
    if (P->C->failed) return NULL;
    if (P->tok.kind != TC__T_IDENT) {
        tc__parse_error_found(P, TC_ERR_SYNTAX, "expected %s", what);
        return NULL;
    }
    return tc__parse_take_name(P, span);
}

/* Appends one element to an arena array (n elements, capacity *cap). */
TC__PRIVATE int tc__parse_push(tc__parser *P, void **arr, int *n, int *cap, const void *elem,
                               size_t size) {
    if (!tc__grow(P->C, arr, cap, *n + 1, size)) return 0;
    memcpy((char *)*arr + (size_t)*n * size, elem, size);
    (*n)++;
    return 1;
}

/* Enters one level of expression nesting; fails past C->max_depth. */
TC__PRIVATE int tc__parse_enter(tc__parser *P) {
    if (P->C->failed) return 0;
    if (P->depth >= P->max_depth)
        return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span, "expression nested deeper than %d",
                        P->max_depth);
    P->depth++;
    return 1;
}

TC__PRIVATE tc__expr *tc__parse_new_expr(tc__parser *P, tc__expr_kind kind, tc__span span,
                                         int nargs) {
    tc__expr *e = (tc__expr *)tc__alloc(P->C, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->span = span;
    e->nargs = nargs;
    if (nargs > 0) {
        e->args = (tc__expr **)tc__alloc_n(P->C, (size_t)nargs, sizeof(tc__expr *));
        if (!e->args) return NULL;
    }
    return e;
}

TC__PRIVATE tc__expr *tc__parse_expr(tc__parser *P);

/* args -> '(' [expr {',' expr}] ')' */
TC__PRIVATE int tc__parse_call_args(tc__parser *P, tc__expr *call) {
    int cap = 0;
    tc__parse_next(P); /* '(' */
    if (P->tok.kind != TC__T_RPAREN) {
        for (;;) {
            tc__expr *a = tc__parse_expr(P);
            if (!a || !tc__parse_push(P, (void **)&call->args, &call->nargs, &cap, &a, sizeof a))
                return 0;
            if (!tc__parse_accept(P, TC__T_COMMA)) break;
        }
    }
    return tc__parse_expect(P, TC__T_RPAREN, "to close the argument list of %s", call->name);
}

/* name_expr -> IDENT                      a name
 *            | IDENT args                 tensor read, builtin, min/max, cast
 *            | IDENT '.' INT              T.d: extent of dimension d of T */
TC__PRIVATE tc__expr *tc__parse_name_expr(tc__parser *P) {
    tc__span start = P->tok.span;
    tc__expr *e = tc__parse_new_expr(P, TC__E_IDENT, start, 0);
    if (!e) return NULL;
    e->name = tc__parse_take_name(P, &e->name_span);
    if (P->tok.kind == TC__T_LPAREN) {
        e->kind = TC__E_CALL;
        if (!tc__parse_call_args(P, e)) return NULL;
    } else if (P->tok.kind == TC__T_DOT) {
        tc__parse_next(P);
        if (P->tok.kind != TC__T_INT) {
            tc__parse_error_found(P, TC_ERR_SYNTAX,
                                  "expected a dimension number after '%s.' (as in %s.0)",
                                  e->name, e->name);
            return NULL;
        }
        e->kind = TC__E_DIM;
        e->ival = P->tok.ival;
        tc__parse_next(P);
    }
    e->span = tc__parse_span_from(P, start);
    return P->C->failed ? NULL : e;
}

/* primary -> INT | FLOAT | name_expr | '(' expr ')' */
TC__PRIVATE tc__expr *tc__parse_primary(tc__parser *P) {
    tc__token t = P->tok;
    tc__expr *e;
    char after[64];
    switch (t.kind) {
    case TC__T_INT:
    case TC__T_FLOAT:
        e = tc__parse_new_expr(P, t.kind == TC__T_INT ? TC__E_INT : TC__E_FLOAT, t.span, 0);
        if (!e) return NULL;
        e->ival = t.ival;
        e->fval = t.fval;
        tc__parse_next(P);
        return e;
    case TC__T_IDENT: return tc__parse_name_expr(P);
    case TC__T_LPAREN:
        tc__parse_next(P);
        e = tc__parse_expr(P);
        if (!e || !tc__parse_expect(P, TC__T_RPAREN, "to close the '(' at %d:%d", t.span.line,
                                    t.span.col))
            return NULL;
        e->span = tc__parse_span_from(P, t.span); /* the parentheses belong to it */
        return e;
    default:
        snprintf(after, sizeof after, "'%.*s'", P->last.length > 40 ? 40 : P->last.length,
                 P->C->src + P->last.offset);
        tc__parse_error_found(P, TC_ERR_SYNTAX, "expected an expression after %s",
                              P->last.length > 0 ? after : "the start");
        return NULL;
    }
}

/* unary -> ('-' | '+' | '!') unary | primary        (unary '+' is dropped) */
TC__PRIVATE tc__expr *tc__parse_unary(tc__parser *P) {
    tc__token op = P->tok;
    tc__expr *e, *n;
    if (op.kind != TC__T_MINUS && op.kind != TC__T_PLUS && op.kind != TC__T_NOT)
        return tc__parse_primary(P);
    if (!tc__parse_enter(P)) return NULL;
    tc__parse_next(P);
    e = tc__parse_unary(P);
    P->depth--;
    if (!e) return NULL;
    if (op.kind == TC__T_PLUS) {
        e->span = tc__span_join(op.span, e->span);
        return e;
    }
    n = tc__parse_new_expr(P, TC__E_UNARY, tc__span_join(op.span, e->span), 1);
    if (!n) return NULL;
    n->op = op.kind;
    n->args[0] = e;
    return n;
}

/* Binding strength of a binary operator (C's), 0 for other tokens. */
TC__PRIVATE int tc__parse_binary_prec(tc__tok k) {
    switch (k) {
    case TC__T_OR: return 1;
    case TC__T_AND: return 2;
    case TC__T_EQ: case TC__T_NE: return 3;
    case TC__T_LT: case TC__T_LE: case TC__T_GT: case TC__T_GE: return 4;
    case TC__T_PLUS: case TC__T_MINUS: return 5;
    case TC__T_STAR: case TC__T_SLASH: case TC__T_PERCENT: return 6;
    default: return 0;
    }
}

/* binary -> unary {binop unary}      left associative, by precedence climbing:
 *           '||' < '&&' < '==' '!=' < '<' '<=' '>' '>=' < '+' '-' < '*' '/' '%'
 * The recursion goes at most 6 levels deep (the precedence rises each time). */
TC__PRIVATE tc__expr *tc__parse_binary(tc__parser *P, int min_prec) {
    tc__expr *lhs = tc__parse_unary(P);
    while (lhs && !P->C->failed) {
        tc__tok op = P->tok.kind;
        int prec = tc__parse_binary_prec(op);
        tc__expr *rhs, *n;
        if (prec == 0 || prec < min_prec) break;
        tc__parse_next(P);
        rhs = tc__parse_binary(P, prec + 1);
        if (!rhs) return NULL;
        n = tc__parse_new_expr(P, TC__E_BINARY, tc__span_join(lhs->span, rhs->span), 2);
        if (!n) return NULL;
        n->op = op;
        n->args[0] = lhs;
        n->args[1] = rhs;
        lhs = n;
    }
    return P->C->failed ? NULL : lhs;
}

/* expr -> binary ['?' expr ':' expr]        (right associative, as in C) */
TC__PRIVATE tc__expr *tc__parse_expr(tc__parser *P) {
    tc__expr *e, *n = NULL;
    tc__token q;
    if (!tc__parse_enter(P)) return NULL;
    e = tc__parse_binary(P, 1);
    q = P->tok;
    if (e && q.kind == TC__T_QUESTION) {
        tc__parse_next(P);
        n = tc__parse_new_expr(P, TC__E_TERNARY, e->span, 3);
        if (n) {
            n->args[0] = e;
            n->args[1] = tc__parse_expr(P);
            if (n->args[1] &&
                tc__parse_expect(P, TC__T_COLON, "to go with the '?' at %d:%d", q.span.line,
                                 q.span.col))
                n->args[2] = tc__parse_expr(P);
            if (n->args[2]) n->span = tc__span_join(e->span, n->args[2]->span);
        }
        e = n;
    }
    P->depth--;
    return P->C->failed ? NULL : e;
}

/* Can this token start an expression? */
TC__PRIVATE int tc__parse_starts_expr(tc__tok k) {
    return k == TC__T_INT || k == TC__T_FLOAT || k == TC__T_IDENT || k == TC__T_LPAREN ||
           k == TC__T_MINUS || k == TC__T_PLUS || k == TC__T_NOT;
}

/* where -> 'exists' expr
 *        | IDENT 'in' expr ':' expr                   range [lo, hi)
 *        | IDENT '=' '[' expr ',' expr '['            the same range (seed README)
 *        | IDENT '=' expr                             let */
TC__PRIVATE int tc__parse_where(tc__parser *P, tc__where *w) {
    tc__span start = P->tok.span;
    if (tc__parse_accept(P, TC__T_EXISTS)) {
        w->kind = TC__W_EXISTS;
        w->expr = tc__parse_expr(P);
    } else if (P->tok.kind != TC__T_IDENT) {
        return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                     "expected a where clause like 'i in 0:N', 'x = expr' or "
                                     "'exists expr'");
    } else {
        w->name = tc__parse_take_name(P, &w->name_span);
        if (tc__parse_accept(P, TC__T_IN)) {
            w->kind = TC__W_RANGE;
            if ((w->lo = tc__parse_expr(P)) != NULL &&
                tc__parse_expect(P, TC__T_COLON, "between the bounds of the range of %s",
                                 w->name))
                w->hi = tc__parse_expr(P);
        } else if (!tc__parse_expect(P, TC__T_ASSIGN, "or 'in' after %s in a where clause",
                                     w->name)) {
            return 0;
        } else if (tc__parse_accept(P, TC__T_LBRACKET)) {
            w->kind = TC__W_RANGE;
            if ((w->lo = tc__parse_expr(P)) != NULL &&
                tc__parse_expect(P, TC__T_COMMA, "between the bounds of [lo, hi[") &&
                (w->hi = tc__parse_expr(P)) != NULL && P->tok.kind == TC__T_RBRACKET)
                return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                             "a range is half-open: write [lo, hi[");
            tc__parse_expect(P, TC__T_LBRACKET, "to end the range [lo, hi[ of %s", w->name);
        } else {
            w->kind = TC__W_LET;
            w->expr = tc__parse_expr(P);
        }
    }
    w->span = tc__parse_span_from(P, start);
    return !P->C->failed;
}

/* where_list -> 'where' where {(',' | 'where') where} */
TC__PRIVATE int tc__parse_where_list(tc__parser *P, tc__stmt *s) {
    int cap = 0;
    do {
        tc__where w;
        memset(&w, 0, sizeof w);
        if (!tc__parse_where(P, &w) ||
            !tc__parse_push(P, (void **)&s->where, &s->n_where, &cap, &w, sizeof w))
            return 0;
    } while (tc__parse_accept(P, TC__T_COMMA) || tc__parse_accept(P, TC__T_WHERE));
    return 1;
}

/* Appends a name and its span to parallel arena arrays. */
TC__PRIVATE int tc__parse_push_name(tc__parser *P, const char ***names, tc__span **spans, int *n,
                                    int *cap, const char *name, tc__span span) {
    int n0 = *n, cap0 = *cap;
    if (!name || !tc__parse_push(P, (void **)names, n, cap, &name, sizeof name)) return 0;
    return tc__parse_push(P, (void **)spans, &n0, &cap0, &span, sizeof span);
}

/* lhs_indices -> '(' [IDENT {',' IDENT}] ')'       distinct plain names */
TC__PRIVATE int tc__parse_lhs_indices(tc__parser *P, tc__stmt *s) {
    int cap = 0, i;
    tc__parse_next(P); /* '(' */
    if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
    for (;;) {
        tc__span sp;
        const char *name;
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected an index name like i on the left of %s "
                                         "(left-hand indices are plain names)",
                                         s->lhs);
        if (s->n_idx == TC_MAX_RANK)
            return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span,
                            "%s has more than %d indices (TC_MAX_RANK)", s->lhs, TC_MAX_RANK);
        name = tc__parse_take_name(P, &sp);
        for (i = 0; name && i < s->n_idx; i++)
            if (strcmp(s->idx[i], name) == 0)
                return tc__fail(P->C, TC_ERR_NAME, sp, "index %s appears twice on the left of %s",
                                name, s->lhs);
        if (!tc__parse_push_name(P, &s->idx, &s->idx_spans, &s->n_idx, &cap, name, sp)) return 0;
        if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
        if (!tc__parse_accept(P, TC__T_COMMA))
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected ',' or ')' after index %s of %s "
                                         "(left-hand indices are plain names)",
                                         name, s->lhs);
    }
}

/* assign -> '=' | '+=' | '*=' | 'min=' | 'max=' | '+=!' | '*=!' | 'min=!' | 'max=!' */
TC__PRIVATE int tc__parse_assign(tc__parser *P, tc__stmt *s) {
    static const struct {
        tc__tok tok;
        tc_reduce reduce;
        int init;
    } ops[] = {{TC__T_ASSIGN, TC_REDUCE_ASSIGN, 0},  {TC__T_PLUS_EQ, TC_REDUCE_SUM, 0},
               {TC__T_TIMES_EQ, TC_REDUCE_PROD, 0},  {TC__T_MIN_EQ, TC_REDUCE_MIN, 0},
               {TC__T_MAX_EQ, TC_REDUCE_MAX, 0},     {TC__T_PLUS_EQ_B, TC_REDUCE_SUM, 1},
               {TC__T_TIMES_EQ_B, TC_REDUCE_PROD, 1}, {TC__T_MIN_EQ_B, TC_REDUCE_MIN, 1},
               {TC__T_MAX_EQ_B, TC_REDUCE_MAX, 1}};
    size_t i;
    tc__tok k = P->tok.kind;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].tok == k) {
            s->reduce = ops[i].reduce;
            s->init = ops[i].init;
            s->op_span = P->tok.span;
            tc__parse_next(P);
            return 1;
        }
    if ((k == TC__T_MINUS || k == TC__T_SLASH || k == TC__T_PERCENT) &&
        tc__parse_peek(P) == TC__T_ASSIGN)
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "'%s=' is not a TC reduction: use =, +=, *=, min= or max=, "
                        "optionally followed by ! (+=! starts from 0)",
                        tc__tok_text[k]);
    return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                 "expected '=', '+=', '*=', 'min=' or 'max=' after %s%s",
                                 s->lhs, s->n_idx ? "(...)" : "");
}

/* Decides `s = f(x, y)`: a def call when f names a def defined earlier and
   the right side is exactly f applied to names; otherwise the statement is
   a 0-rank comprehension (f a tensor read, builtin or cast). The current
   token is '='; scans ahead on a quiet copy of the lexer. */
TC__PRIVATE int tc__parse_is_call(const tc__parser *P) {
    tc__lexer L = P->L;
    tc__token t;
    int i, known = 0;
    L.quiet = 1;
    tc__lex_next(&L, &t);
    if (t.kind != TC__T_IDENT) return 0;
    for (i = 0; i < P->ast->n_defs && !known; i++)
        known = strlen(P->ast->defs[i].name) == (size_t)t.span.length &&
                memcmp(P->ast->defs[i].name, P->C->src + t.span.offset,
                       (size_t)t.span.length) == 0;
    tc__lex_next(&L, &t);
    if (!known || t.kind != TC__T_LPAREN) return 0;
    tc__lex_next(&L, &t);
    if (t.kind != TC__T_RPAREN) {
        for (;;) {
            if (t.kind != TC__T_IDENT) return 0;
            tc__lex_next(&L, &t);
            if (t.kind == TC__T_RPAREN) break;
            if (t.kind != TC__T_COMMA) return 0;
            tc__lex_next(&L, &t);
        }
    }
    tc__lex_next(&L, &t);
    return !tc__parse_binary_prec(t.kind) && t.kind != TC__T_QUESTION &&
           t.kind != TC__T_WHERE;
}

/* call_stmt -> IDENT {',' IDENT} '=' IDENT '(' [IDENT {',' IDENT}] ')'
 * The first output name is consumed; its span is `first`. */
TC__PRIVATE int tc__parse_call_stmt(tc__parser *P, tc__stmt *s, tc__span first) {
    int cap = 0;
    s->is_call = 1;
    if (!tc__parse_push_name(P, &s->outs, &s->out_spans, &s->n_outs, &cap, s->lhs, first))
        return 0;
    s->lhs = NULL;
    while (tc__parse_accept(P, TC__T_COMMA)) {
        tc__span sp;
        const char *name = tc__parse_name(P, &sp, "an output name after ',' in a def call");
        if (!tc__parse_push_name(P, &s->outs, &s->out_spans, &s->n_outs, &cap, name, sp))
            return 0;
    }
    if (!tc__parse_expect(P, TC__T_ASSIGN, "after the outputs of a def call (a, b = f(x))"))
        return 0;
    s->callee = tc__parse_name(P, &s->callee_span, "the name of the def to call");
    if (!s->callee ||
        !tc__parse_expect(P, TC__T_LPAREN, "after %s in a def call (a, b = f(x))", s->callee))
        return 0;
    cap = 0;
    if (!tc__parse_accept(P, TC__T_RPAREN)) {
        do {
            tc__span sp;
            const char *name =
                tc__parse_name(P, &sp, "a tensor name (def call arguments are names)");
            if (!tc__parse_push_name(P, &s->args, &s->arg_spans, &s->n_args, &cap, name, sp))
                return 0;
        } while (tc__parse_list_more(P, "in the arguments of %s", s->callee));
    }
    if (P->C->failed) return 0;
    s->span = tc__parse_span_from(P, first);
    return 1;
}

/* stmt -> call_stmt
 *       | IDENT [lhs_indices] assign expr [where_list]         comprehension */
TC__PRIVATE int tc__parse_stmt(tc__parser *P, tc__stmt *s) {
    tc__span first = P->tok.span;
    s->lhs = tc__parse_take_name(P, &s->lhs_span);
    if (P->tok.kind == TC__T_COMMA || (P->tok.kind == TC__T_ASSIGN && tc__parse_is_call(P)))
        return tc__parse_call_stmt(P, s, first);
    if (P->tok.kind == TC__T_LPAREN && !tc__parse_lhs_indices(P, s)) return 0;
    if (!tc__parse_assign(P, s)) return 0;
    s->rhs = tc__parse_expr(P);
    if (s->rhs && tc__parse_accept(P, TC__T_WHERE)) tc__parse_where_list(P, s);
    s->span = tc__parse_span_from(P, first);
    return !P->C->failed;
}

/* The dtype named by the current token, if it is one. */
TC__PRIVATE int tc__parse_dtype(const tc__parser *P, tc_dtype *dt) {
    char name[16];
    if (P->tok.kind != TC__T_IDENT || P->tok.span.length >= (int)sizeof name) return 0;
    memcpy(name, P->C->src + P->tok.span.offset, (size_t)P->tok.span.length);
    name[P->tok.span.length] = '\0';
    return tc_dtype_from_name(name, dt);
}

/* dims -> '(' [dim {',' dim}] ')'        dim -> IDENT | INT   (size variable or constant) */
TC__PRIVATE int tc__parse_dims(tc__parser *P, tc__param *p, const char *type) {
    int cap = 0;
    tc__parse_next(P); /* '(' */
    if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
    do {
        tc__expr *d;
        if (P->tok.kind != TC__T_IDENT && P->tok.kind != TC__T_INT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected a size variable or an integer as a "
                                         "dimension of %s(...)",
                                         type);
        if (p->rank == TC_MAX_RANK)
            return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span,
                            "more than %d dimensions (TC_MAX_RANK)", TC_MAX_RANK);
        d = tc__parse_new_expr(P, P->tok.kind == TC__T_INT ? TC__E_INT : TC__E_IDENT,
                               P->tok.span, 0);
        if (!d) return 0;
        d->ival = P->tok.ival;
        d->name_span = P->tok.span;
        if (d->kind == TC__E_IDENT) d->name = tc__parse_take_name(P, NULL);
        else tc__parse_next(P);
        if (P->C->failed || !tc__parse_push(P, (void **)&p->dims, &p->rank, &cap, &d, sizeof d))
            return 0;
    } while (tc__parse_list_more(P, "in the dimensions of %s(...)", type));
    return !P->C->failed;
}

/* param -> TYPE [dims] IDENT       TYPE: a dtype name or alias */
TC__PRIVATE int tc__parse_param(tc__parser *P, tc__param *p, const char *what) {
    tc__span start = P->tok.span;
    char type[16];
    if (!tc__parse_dtype(P, &p->dtype)) {
        tc__tok next = tc__parse_peek(P);
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX, "expected %s like float(N) A", what);
        if (next == TC__T_COMMA || next == TC__T_RPAREN)
            return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                            "%s %.*s needs a type, as in float(N) %.*s", what,
                            P->tok.span.length, P->C->src + P->tok.span.offset,
                            P->tok.span.length, P->C->src + P->tok.span.offset);
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "unknown type '%.*s' (types: bool, int8/16/32/64, uint8/16/32/64, "
                        "float16, float32, float64, and half, float, double, byte, int)",
                        P->tok.span.length > 40 ? 40 : P->tok.span.length,
                        P->C->src + P->tok.span.offset);
    }
    snprintf(type, sizeof type, "%.*s", P->tok.span.length, P->C->src + P->tok.span.offset);
    p->has_type = 1;
    tc__parse_next(P);
    if (P->tok.kind == TC__T_LPAREN && !tc__parse_dims(P, p, type)) return 0;
    p->name = tc__parse_name(P, &p->name_span, "a name after the type");
    p->span = tc__parse_span_from(P, start);
    return !P->C->failed;
}

/* output -> IDENT | param */
TC__PRIVATE int tc__parse_output(tc__parser *P, tc__param *p) {
    tc_dtype dt;
    if (tc__parse_dtype(P, &dt)) return tc__parse_param(P, p, "an output");
    p->name = tc__parse_name(P, &p->name_span, "an output name");
    p->span = p->name_span;
    return !P->C->failed;
}

/* outputs -> '(' output {',' output} ')' | output */
TC__PRIVATE int tc__parse_outputs(tc__parser *P, tc__def *d) {
    int cap = 0, parens = tc__parse_accept(P, TC__T_LPAREN);
    if (parens && P->tok.kind == TC__T_RPAREN)
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "def %s has no outputs: list at least one, as in -> (C)", d->name);
    do {
        tc__param p;
        memset(&p, 0, sizeof p);
        if (!tc__parse_output(P, &p) ||
            !tc__parse_push(P, (void **)&d->outputs, &d->n_outputs, &cap, &p, sizeof p))
            return 0;
    } while (parens && tc__parse_accept(P, TC__T_COMMA));
    if (parens) return tc__parse_expect(P, TC__T_RPAREN, "to close the outputs of %s", d->name);
    if (P->tok.kind == TC__T_COMMA)
        return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                     "expected '{' (several outputs go in parentheses: "
                                     "-> (C, D))");
    return 1;
}

/* body -> '{' {stmt [';']} '}' */
TC__PRIVATE int tc__parse_body(tc__parser *P, tc__def *d) {
    int cap = 0;
    tc__span open = P->tok.span;
    if (!tc__parse_expect(P, TC__T_LBRACE, "to open the body of %s", d->name)) return 0;
    while (!P->C->failed && !tc__parse_accept(P, TC__T_RBRACE)) {
        tc__stmt s;
        memset(&s, 0, sizeof s);
        if (tc__parse_accept(P, TC__T_SEMI)) continue;
        if (P->tok.kind == TC__T_EOF || P->tok.kind == TC__T_DEF)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected '}' to close def %s (opened at %d:%d)",
                                         d->name, open.line, open.col);
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected a statement like C(i) = A(i) + 1");
        if (!tc__parse_stmt(P, &s) ||
            !tc__parse_push(P, (void **)&d->stmts, &d->n_stmts, &cap, &s, sizeof s))
            return 0;
    }
    return !P->C->failed;
}

/* def -> 'def' IDENT '(' [param {',' param}] ')' '->' outputs body */
TC__PRIVATE int tc__parse_def(tc__parser *P, tc__def *d) {
    tc__span start = P->tok.span;
    int cap = 0;
    if (!tc__parse_expect(P, TC__T_DEF, "to start a definition")) return 0;
    d->name = tc__parse_name(P, &d->name_span, "a name after 'def'");
    if (!d->name || !tc__parse_expect(P, TC__T_LPAREN, "after def %s", d->name)) return 0;
    if (!tc__parse_accept(P, TC__T_RPAREN)) {
        tc__param p;
        do {
            memset(&p, 0, sizeof p);
            if (!tc__parse_param(P, &p, "a parameter") ||
                !tc__parse_push(P, (void **)&d->inputs, &d->n_inputs, &cap, &p, sizeof p))
                return 0;
        } while (tc__parse_list_more(P, "after parameter %s", p.name));
    }
    if (!tc__parse_expect(P, TC__T_ARROW, "and the outputs after the parameters of %s",
                          d->name) ||
        !tc__parse_outputs(P, d) || !tc__parse_body(P, d))
        return 0;
    d->span = tc__parse_span_from(P, start);
    return 1;
}

/* source -> def {def}
 * Lexes and parses C->src into *out (arena). Returns 1, or 0 after
 * tc__fail: TC_ERR_SYNTAX, TC_ERR_NAME (an index twice on the left),
 * TC_ERR_LIMIT (nesting, rank), TC_ERR_OUT_OF_MEMORY. */
TC__PRIVATE int tc__parse(tc__ctx *C, tc__ast *out) {
    tc__parser P;
    memset(out, 0, sizeof *out);
    if (C->failed) return 0;
    if (C->src_len > (size_t)INT_MAX / 2) {
        tc__span none = {0, 0, 0, 0};
        return tc__fail(C, TC_ERR_LIMIT, none, "source too large");
    }
    memset(&P, 0, sizeof P);
    P.C = C;
    P.ast = out;
    P.max_depth = C->max_depth > 0 ? C->max_depth : TC_MAX_DEPTH;
    tc__lex_init(&P.L, C);
    tc__parse_next(&P);
    while (!C->failed && P.tok.kind != TC__T_EOF) {
        tc__def d;
        memset(&d, 0, sizeof d);
        if (!tc__parse_def(&P, &d)) break;
        tc__parse_push(&P, (void **)&out->defs, &out->n_defs, &P.cap_defs, &d, sizeof d);
    }
    if (!C->failed && out->n_defs == 0)
        tc__fail(C, TC_ERR_SYNTAX, P.tok.span,
                 "the source has no def: expected def name(float(N) A) -> (B) { ... }");
    if (C->failed) memset(out, 0, sizeof *out);
    return !C->failed;
}
