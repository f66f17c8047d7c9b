/* Python's random.Random in C: MT19937 seeded and drawn exactly as CPython does (seed(int),
 * getrandbits, _randbelow_with_getrandbits, shuffle, random).
 * Part of the compiled core: included by _core.c, in the order given there. */
/* ------------------------------------------------------------------ MT19937 as CPython's */

typedef struct {
    uint32_t mt[624];
    int mti;
} MT;

static void mt_init_genrand(MT *m, uint32_t s) {
    m->mt[0] = s;
    for (int i = 1; i < 624; i++)
        m->mt[i] = 1812433253U * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->mti = 624;
}

static void mt_init_by_array(MT *m, const uint32_t *key, size_t len) {
    mt_init_genrand(m, 19650218U);
    size_t i = 1, j = 0, k = 624 > len ? 624 : len;
    for (; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= 624) {
            m->mt[0] = m->mt[623];
            i = 1;
        }
        if (j >= len) j = 0;
    }
    for (k = 623; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) {
            m->mt[0] = m->mt[623];
            i = 1;
        }
    }
    m->mt[0] = 0x80000000U;
}

static uint32_t mt_next(MT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 1U];
        m->mti = 0;
    }
    y = m->mt[m->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random._randbelow_with_getrandbits for 0 < n < 2**32. */
static uint32_t mt_below(MT *m, uint32_t n) {
    int k = 32 - __builtin_clz(n);
    uint32_t r = mt_next(m) >> (32 - k);
    while (r >= n) r = mt_next(m) >> (32 - k);
    return r;
}

static void mt_shuffle(MT *m, uint8_t *x, int len) {
    for (int i = len - 1; i > 0; i--) {
        int j = (int)mt_below(m, (uint32_t)(i + 1));
        uint8_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* Seed from a Python int as random.seed() does (absolute value, 32-bit words, low first). */
static int mt_seed_object(MT *m, PyObject *seed) {
    uint32_t key[64];
    size_t len = 0;
    PyObject *n = PyNumber_Absolute(seed);
    if (n == NULL) return -1;
    PyObject *mask = PyLong_FromUnsignedLong(0xffffffffUL), *shift = PyLong_FromLong(32);
    if (mask == NULL || shift == NULL) goto fail;
    while (PyObject_IsTrue(n)) {
        if (len == 64) {
            PyErr_SetString(PyExc_ValueError, "the seed has more than 2048 bits");
            goto fail;
        }
        PyObject *low = PyNumber_And(n, mask);
        if (low == NULL) goto fail;
        key[len++] = (uint32_t)PyLong_AsUnsignedLong(low);
        Py_DECREF(low);
        PyObject *rest = PyNumber_Rshift(n, shift);
        if (rest == NULL) goto fail;
        Py_SETREF(n, rest);
    }
    if (len == 0) key[len++] = 0;
    Py_DECREF(n);
    Py_DECREF(mask);
    Py_DECREF(shift);
    mt_init_by_array(m, key, len);
    return 0;
fail:
    Py_XDECREF(n);
    Py_XDECREF(mask);
    Py_XDECREF(shift);
    return -1;
}

static void mt_seed_u64(MT *m, uint64_t seed) {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(m, key, key[1] ? 2 : 1);
}

/* random.Random.random(): 53 bits from two draws. */
static double mt_random(MT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}
