/* The two JSON lines of the wire format (docs/architecture.md, "Wire format:
 * shim ⇄ oracle"): the request this program writes and the decision it reads. The
 * reader takes any well-formed JSON object and uses its top-level
 * "decision" and "message" strings; anything else is not a decision. No JSON
 * library is used because the ones Debian ships are built against glibc. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images/shell/shell.h"

void shell_buf_lend(struct shell_buf* buf, char* storage, size_t cap) {
  memset(buf, 0, sizeof *buf);
  buf->data = storage;
  buf->cap = cap;
  buf->lent = 1;
  storage[0] = '\0';
}

void shell_buf_view(struct shell_buf* buf, const char* text, size_t len) {
  memset(buf, 0, sizeof *buf);
  buf->data = (char*)text; /* never written: lent and full, so an append copies first */
  buf->len = len;
  buf->cap = len + 1;
  buf->lent = 1;
}

void shell_buf_append(struct shell_buf* buf, const char* bytes, size_t len) {
  if (buf->failed) return;
  if (buf->len + len + 1 > buf->cap) {
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < buf->len + len + 1) cap *= 2;
    char* data = buf->lent ? malloc(cap) : realloc(buf->data, cap);
    if (!data) {
      buf->failed = 1;
      return;
    }
    if (buf->lent && buf->len) memcpy(data, buf->data, buf->len);
    buf->lent = 0;
    buf->data = data;
    buf->cap = cap;
  }
  memcpy(buf->data + buf->len, bytes, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
}

void shell_buf_free(struct shell_buf* buf) {
  if (!buf->lent) free(buf->data);
  memset(buf, 0, sizeof *buf);
}

/* The length of the well-formed UTF-8 sequence at s (1-4), or 0. */
static size_t utf8_length(const unsigned char* s, size_t left) {
  unsigned char c = s[0];
  size_t n;
  uint32_t min, cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0)
    n = 2, min = 0x80, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    n = 3, min = 0x800, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    n = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  if (n > left) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

static void append_json_string(struct shell_buf* out, const char* text, size_t len) {
  const unsigned char* s = (const unsigned char*)text;
  shell_buf_append(out, "\"", 1);
  for (size_t i = 0; i < len;) {
    unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      char escaped[2] = {'\\', (char)c};
      shell_buf_append(out, escaped, 2);
      ++i;
    } else if (c < 0x20) {
      char escaped[8];
      snprintf(escaped, sizeof escaped, "\\u%04x", c);
      shell_buf_append(out, escaped, 6);
      ++i;
    } else {
      size_t n = utf8_length(s + i, len - i);
      if (n == 0) {
        shell_buf_append(out, "\xEF\xBF\xBD", 3); /* U+FFFD for a byte that is not UTF-8 */
        ++i;
      } else {
        shell_buf_append(out, text + i, n);
        i += n;
      }
    }
  }
  shell_buf_append(out, "\"", 1);
}

void shell_request(struct shell_buf* out, const char* shell, const char* command,
                   size_t command_len, const char* cwd) {
  shell_buf_append(out, "{\"v\":1,\"shell\":", 15);
  append_json_string(out, shell, strlen(shell));
  shell_buf_append(out, ",\"command\":", 11);
  append_json_string(out, command, command_len);
  shell_buf_append(out, ",\"cwd\":", 7);
  append_json_string(out, cwd, strlen(cwd));
  shell_buf_append(out, "}\n", 2);
}

/* A reader over one line of JSON. Every function returns 0 or -1. */
struct reader {
  const char *p, *end;
};

static void skip_space(struct reader* r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
    ++r->p;
  }
}

static int read_hex4(struct reader* r, uint32_t* value) {
  if (r->end - r->p < 4) return -1;
  *value = 0;
  for (int i = 0; i < 4; ++i) {
    char c = *r->p++;
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return -1;
    *value = *value * 16 + (uint32_t)digit;
  }
  return 0;
}

static void append_utf8(struct shell_buf* out, uint32_t cp) {
  char bytes[4];
  size_t n;
  if (cp < 0x80)
    bytes[0] = (char)cp, n = 1;
  else if (cp < 0x800)
    bytes[0] = (char)(0xC0 | cp >> 6), n = 2;
  else if (cp < 0x10000)
    bytes[0] = (char)(0xE0 | cp >> 12), n = 3;
  else
    bytes[0] = (char)(0xF0 | cp >> 18), n = 4;
  for (size_t i = 1; i < n; ++i) bytes[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3F));
  shell_buf_append(out, bytes, n);
}

/* A string at r->p (after its opening quote is checked here); its value is
 * appended to `out` when `out` is not NULL. */
static int read_string(struct reader* r, struct shell_buf* out) {
  if (r->p >= r->end || *r->p != '"') return -1;
  ++r->p;
  while (r->p < r->end) {
    unsigned char c = (unsigned char)*r->p;
    if (c == '"') {
      ++r->p;
      return 0;
    }
    if (c < 0x20) return -1;
    if (c != '\\') {
      size_t n = utf8_length((const unsigned char*)r->p, (size_t)(r->end - r->p));
      if (n == 0) return -1;
      if (out) shell_buf_append(out, r->p, n);
      r->p += n;
      continue;
    }
    if (++r->p >= r->end) return -1;
    char e = *r->p++;
    const char* simple = strchr("\"\\/bfnrt", e);
    if (e != '\0' && simple) {
      static const char kValues[] = "\"\\/\b\f\n\r\t";
      if (out) shell_buf_append(out, &kValues[simple - "\"\\/bfnrt"], 1);
      continue;
    }
    if (e != 'u') return -1;
    uint32_t cp, low;
    if (read_hex4(r, &cp) != 0) return -1;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return -1; /* a lone low surrogate */
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') return -1;
      r->p += 2;
      if (read_hex4(r, &low) != 0 || low < 0xDC00 || low > 0xDFFF) return -1;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (out) append_utf8(out, cp);
  }
  return -1;
}

static int expect_word(struct reader* r, const char* word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return -1;
  r->p += n;
  return 0;
}

static int skip_number(struct reader* r) {
  const char* start = r->p;
  if (r->p < r->end && *r->p == '-') ++r->p;
  const char* digits = r->p;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
  if (r->p == digits || (*digits == '0' && r->p - digits > 1)) return -1;
  if (r->p < r->end && *r->p == '.') {
    const char* fraction = ++r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
    if (r->p == fraction) return -1;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    ++r->p;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) ++r->p;
    const char* exponent = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') ++r->p;
    if (r->p == exponent) return -1;
  }
  return r->p > start ? 0 : -1;
}

static int skip_value(struct reader* r, int depth);

/* The members of an object or the items of an array, after its opening
 * bracket; `on_key` sees each object key (NULL for arrays). */
static int read_members(struct reader* r, char close, int depth,
                        int (*on_key)(struct reader*, const struct shell_buf*, void*),
                        void* context) {
  skip_space(r);
  if (r->p < r->end && *r->p == close) {
    ++r->p;
    return 0;
  }
  for (;;) {
    skip_space(r);
    if (close == '}') {
      char key_space[64];
      struct shell_buf key;
      shell_buf_lend(&key, key_space, sizeof key_space);
      int bad = read_string(r, &key) != 0 || key.failed;
      skip_space(r);
      bad = bad || r->p >= r->end || *r->p++ != ':';
      skip_space(r);
      if (!bad) bad = on_key ? on_key(r, &key, context) != 0 : skip_value(r, depth + 1) != 0;
      shell_buf_free(&key);
      if (bad) return -1;
    } else if (skip_value(r, depth + 1) != 0) {
      return -1;
    }
    skip_space(r);
    if (r->p >= r->end) return -1;
    char c = *r->p++;
    if (c == close) return 0;
    if (c != ',') return -1;
  }
}

static int skip_value(struct reader* r, int depth) {
  if (depth > 64 || r->p >= r->end) return -1;
  switch (*r->p) {
    case '{': ++r->p; return read_members(r, '}', depth, NULL, NULL);
    case '[': ++r->p; return read_members(r, ']', depth, NULL, NULL);
    case '"': return read_string(r, NULL);
    case 't': return expect_word(r, "true");
    case 'f': return expect_word(r, "false");
    case 'n': return expect_word(r, "null");
    default: return skip_number(r);
  }
}

struct decision {
  int seen, is_string;
  struct shell_buf value, message;
};

static int on_decision_key(struct reader* r, const struct shell_buf* key, void* context) {
  struct decision* d = context;
  const char* name = key->data ? key->data : "";
  struct shell_buf* target = NULL;
  if (strcmp(name, "decision") == 0) {
    d->seen = 1;
    d->is_string = r->p < r->end && *r->p == '"';
    target = &d->value;
  } else if (strcmp(name, "message") == 0 && r->p < r->end && *r->p == '"') {
    target = &d->message;
  }
  if (!target || r->p >= r->end || *r->p != '"') return skip_value(r, 1);
  target->len = 0; /* a repeated key: the last one counts */
  return read_string(r, target);
}

int shell_read_decision(const char* line, size_t len, struct shell_buf* message) {
  struct reader r = {line, line + len};
  struct decision d = {0};
  char value_space[32];
  shell_buf_lend(&d.value, value_space, sizeof value_space);
  skip_space(&r);
  int ok = r.p < r.end && *r.p++ == '{' && read_members(&r, '}', 0, on_decision_key, &d) == 0;
  skip_space(&r);
  ok = ok && r.p == r.end && d.seen && !d.value.failed && !d.message.failed;
  int result = -1;
  if (ok) {
    result = d.is_string && d.value.len == 5 && memcmp(d.value.data, "allow", 5) == 0;
    message->len = 0;
    if (result == 0 && d.message.len > 0) {
      shell_buf_append(message, d.message.data, d.message.len);
    } else if (result == 0) {
      shell_buf_append(message, "corral blocked this command.", 28);
    }
  }
  shell_buf_free(&d.value);
  shell_buf_free(&d.message);
  return result;
}
