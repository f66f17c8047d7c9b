/* The RL environments' optional accelerator: the observation vector of one view written in one
 * C call (encode), the legal ids marked in a mask (mark), and the legal ids' table by object
 * (IdTable). ttr_nordic.rl loads it through _accel.py when it is built (the package's build hook
 * compiles it); without it the Python paths give the same results. The layout is the module
 * docstring's of observation.py: LAYOUT below is compared with the Python constants at
 * import, and the accelerator is not used when they differ.
 *
 * encode(out, view, board_table, phases) reads the view's fields by name (a StepView or a
 * PlayerView), checks every index it writes through, and writes the whole vector: into
 * ``out``'s buffer (a float32 array of SIZE cells), or into ``out`` as a list of SIZE Python
 * floats, replacing only the cells whose value changed. Values are computed in double and
 * rounded to float32, as numpy rounds the Python path's values. A view it cannot read raises
 * (TypeError, ValueError) and leaves ``out`` unchanged.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NUM_ROUTES 81
#define NUM_TICKETS 46
#define NUM_KINDS 9
#define SEATS 3
#define NUM_PHASES 6
#define NUM_SLOTS 5
#define MAX_CITIES 255
#define ROUTES_END (NUM_ROUTES * SEATS)
#define HAND_START ROUTES_END
#define KNOWN_START (HAND_START + NUM_KINDS)
#define DISPLAY_START (KNOWN_START + 2 * NUM_KINDS)
#define PILES_START (DISPLAY_START + NUM_SLOTS * NUM_KINDS)
#define TICKETS_START (PILES_START + 11)
#define OFFER_START (TICKETS_START + 2 * NUM_TICKETS)
#define TICKETS_END (TICKETS_START + 3 * NUM_TICKETS)
#define SEATS_START TICKETS_END
#define PHASE_START (SEATS_START + SEATS * 5)
#define TURN_START (PHASE_START + NUM_PHASES)
#define FINAL_START (TURN_START + SEATS)
#define TUNNEL_START (FINAL_START + 2)
#define SIZE (TUNNEL_START + 2 * NUM_KINDS + 2)

enum {
    F_PLAYER, F_NUM_PLAYERS, F_CURRENT, F_PHASE, F_DISPLAY, F_DECK_COUNT, F_DISCARD,
    F_TICKET_DECK_COUNT, F_ROUTE_OWNER, F_TRAINS, F_SCORES, F_HAND_SIZES, F_TICKET_COUNTS,
    F_OFFER_COUNTS, F_KNOWN_CARDS, F_HAND, F_TICKETS, F_OFFERED_TICKETS, F_TUNNEL,
    F_FINAL_TURNS_LEFT, F_FINAL_ROUND_TRIGGER, F_BASE, F_REVEALED, F_NEEDED, F_LOCOMOTIVE_ONLY,
    F_COUNT
};

static const char *field_names[F_COUNT] = {
    "player", "num_players", "current", "phase", "display", "deck_count", "discard",
    "ticket_deck_count", "route_owner", "trains", "scores", "hand_sizes", "ticket_counts",
    "offer_counts", "known_cards", "hand", "tickets", "offered_tickets", "tunnel",
    "final_turns_left", "final_round_trigger", "base", "revealed", "needed", "locomotive_only",
};

static PyObject *names[F_COUNT];
static PyObject *zero_float, *one_float;

/* An int attribute of obj. */
static int get_int(PyObject *obj, int field, long *out) {
    PyObject *value = PyObject_GetAttr(obj, names[field]);
    if (value == NULL) return -1;
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "view field %s is not an int", field_names[field]);
        Py_DECREF(value);
        return -1;
    }
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* The ints of a tuple or list, at most max of them (exactly max when exact). */
static int ints_of(PyObject *seq, const char *what, long *out, Py_ssize_t max, int exact, Py_ssize_t *count) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max || (exact && n != max)) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd values, not %s%zd", what, n, exact ? "" : "at most ", max);
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_Check(items[i])) {
            PyErr_Format(PyExc_TypeError, "%s holds a value that is not an int", what);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = PyLong_AsLong(items[i]);
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    if (count != NULL) *count = n;
    return 0;
}

/* The ints of a tuple or list attribute of obj. */
static int get_ints(PyObject *obj, int field, long *out, Py_ssize_t max, int exact, Py_ssize_t *count) {
    PyObject *value = PyObject_GetAttr(obj, names[field]);
    if (value == NULL) return -1;
    int result = ints_of(value, field_names[field], out, max, exact, count);
    Py_DECREF(value);
    return result;
}

static int in_range(long value, long low, long high, int field) {
    if (value < low || value >= high) {
        PyErr_Format(PyExc_ValueError, "view field %s holds %ld, outside %ld..%ld", field_names[field], value, low,
                     high - 1);
        return 0;
    }
    return 1;
}

static float scaled(long value, double scale) { return (float)((double)value / scale); }

static long find_root(unsigned char *parent, long city) {
    while (parent[city] != city) city = parent[city];
    return city;
}

/* Writes the vector of view into v (SIZE floats, zeroed by the caller). */
static int encode_into(float *v, PyObject *view, const unsigned char *table, Py_ssize_t table_len, PyObject *phases) {
    long n, me, current, deck_count, ticket_deck_count, final_turns_left, final_round_trigger;
    long owners[NUM_ROUTES], hand[NUM_KINDS], counts[NUM_KINDS], display[NUM_SLOTS];
    long trains[SEATS], scores[SEATS], hand_sizes[SEATS], ticket_counts[SEATS], offer_counts[SEATS];
    long tickets[NUM_TICKETS], offered[NUM_TICKETS];
    Py_ssize_t num_tickets, num_offered;

    /* The board: cities, routes and tickets, then each route's and each ticket's two cities. */
    if (table_len < 3) goto bad_table;
    long num_cities = table[0];
    if (table[1] != NUM_ROUTES || table[2] != NUM_TICKETS || table_len != 3 + 2 * (NUM_ROUTES + NUM_TICKETS)) goto bad_table;
    for (Py_ssize_t i = 3; i < table_len; i++) {
        if (table[i] >= num_cities) goto bad_table;
    }
    const unsigned char *route_ends = table + 3, *ticket_ends = table + 3 + 2 * NUM_ROUTES;

    if (get_int(view, F_NUM_PLAYERS, &n) < 0) return -1;
    if (n != 2 && n != 3) {
        PyErr_Format(PyExc_ValueError, "a view of %ld players (2 or 3)", n);
        return -1;
    }
    if (get_int(view, F_PLAYER, &me) < 0 || !in_range(me, 0, n, F_PLAYER)) return -1;
    if (get_int(view, F_CURRENT, &current) < 0 || !in_range(current, 0, n, F_CURRENT)) return -1;

    /* Route owners, one-hot by relative seat. */
    if (get_ints(view, F_ROUTE_OWNER, owners, NUM_ROUTES, 1, NULL) < 0) return -1;
    for (int r = 0; r < NUM_ROUTES; r++) {
        if (!in_range(owners[r], -1, n, F_ROUTE_OWNER)) return -1;
        if (owners[r] >= 0) v[r * SEATS + (owners[r] - me + n) % n] = 1.0f;
    }
    /* Own hand, the opponents' known cards (relative order). */
    if (get_ints(view, F_HAND, hand, NUM_KINDS, 1, NULL) < 0) return -1;
    for (int k = 0; k < NUM_KINDS; k++) v[HAND_START + k] = scaled(hand[k], 12);
    PyObject *known = PyObject_GetAttr(view, names[F_KNOWN_CARDS]);
    if (known == NULL) return -1;
    PyObject *known_fast = PySequence_Fast(known, "known_cards");
    Py_DECREF(known);
    if (known_fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(known_fast) != n) {
        Py_DECREF(known_fast);
        PyErr_SetString(PyExc_ValueError, "known_cards does not hold one entry per player");
        return -1;
    }
    for (long r = 1; r < n; r++) {
        if (ints_of(PySequence_Fast_GET_ITEM(known_fast, (me + r) % n), "known_cards", counts, NUM_KINDS, 1, NULL) < 0) {
            Py_DECREF(known_fast);
            return -1;
        }
        for (int k = 0; k < NUM_KINDS; k++) v[KNOWN_START + (r - 1) * NUM_KINDS + k] = scaled(counts[k], 12);
    }
    Py_DECREF(known_fast);
    /* The display: one-hot card kind per slot. */
    if (get_ints(view, F_DISPLAY, display, NUM_SLOTS, 1, NULL) < 0) return -1;
    for (int s = 0; s < NUM_SLOTS; s++) {
        if (!in_range(display[s], -1, NUM_KINDS, F_DISPLAY)) return -1;
        if (display[s] >= 0) v[DISPLAY_START + s * NUM_KINDS + display[s]] = 1.0f;
    }
    /* Piles. */
    if (get_int(view, F_DECK_COUNT, &deck_count) < 0) return -1;
    v[PILES_START] = scaled(deck_count, 157);
    if (get_ints(view, F_DISCARD, counts, NUM_KINDS, 1, NULL) < 0) return -1;
    for (int k = 0; k < NUM_KINDS; k++) v[PILES_START + 1 + k] = scaled(counts[k], 12);
    if (get_int(view, F_TICKET_DECK_COUNT, &ticket_deck_count) < 0) return -1;
    v[PILES_START + 10] = scaled(ticket_deck_count, NUM_TICKETS);
    /* Own tickets, completed by own routes now (union-find over the player's network). */
    if (get_ints(view, F_TICKETS, tickets, NUM_TICKETS, 0, &num_tickets) < 0) return -1;
    if (num_tickets > 0) {
        unsigned char parent[MAX_CITIES + 1];
        for (long c = 0; c < num_cities; c++) parent[c] = (unsigned char)c;
        for (int r = 0; r < NUM_ROUTES; r++) {
            if (owners[r] != me) continue;
            long a = find_root(parent, route_ends[2 * r]), b = find_root(parent, route_ends[2 * r + 1]);
            if (a != b) parent[a] = (unsigned char)b;
        }
        for (Py_ssize_t i = 0; i < num_tickets; i++) {
            long t = tickets[i];
            if (!in_range(t, 0, NUM_TICKETS, F_TICKETS)) return -1;
            v[TICKETS_START + 2 * t] = 1.0f;
            if (find_root(parent, ticket_ends[2 * t]) == find_root(parent, ticket_ends[2 * t + 1]))
                v[TICKETS_START + 2 * t + 1] = 1.0f;
        }
    }
    if (get_ints(view, F_OFFERED_TICKETS, offered, NUM_TICKETS, 0, &num_offered) < 0) return -1;
    for (Py_ssize_t i = 0; i < num_offered; i++) {
        if (!in_range(offered[i], 0, NUM_TICKETS, F_OFFERED_TICKETS)) return -1;
        v[OFFER_START + offered[i]] = 1.0f;
    }
    /* Per seat, in relative order. */
    if (get_ints(view, F_TRAINS, trains, n, 1, NULL) < 0 || get_ints(view, F_SCORES, scores, n, 1, NULL) < 0 ||
        get_ints(view, F_HAND_SIZES, hand_sizes, n, 1, NULL) < 0 ||
        get_ints(view, F_TICKET_COUNTS, ticket_counts, n, 1, NULL) < 0 ||
        get_ints(view, F_OFFER_COUNTS, offer_counts, n, 1, NULL) < 0)
        return -1;
    for (long seat = 0; seat < n; seat++) {
        float *base = v + SEATS_START + 5 * ((seat - me + n) % n);
        base[0] = scaled(trains[seat], 40);
        base[1] = scaled(scores[seat], 100);
        base[2] = scaled(hand_sizes[seat], 40);
        base[3] = scaled(ticket_counts[seat], NUM_TICKETS);
        base[4] = scaled(offer_counts[seat], 5);
    }
    /* Phase (by identity, as PHASES.index finds an Enum member) and the seat to decide. */
    PyObject *phase = PyObject_GetAttr(view, names[F_PHASE]);
    if (phase == NULL) return -1;
    int phase_index = -1;
    for (int i = 0; i < NUM_PHASES; i++) {
        if (PyTuple_GET_ITEM(phases, i) == phase) phase_index = i;
    }
    Py_DECREF(phase);
    if (phase_index < 0) {
        PyErr_SetString(PyExc_ValueError, "view field phase is not one of the phases");
        return -1;
    }
    v[PHASE_START + phase_index] = 1.0f;
    if (phase_index != NUM_PHASES - 1) v[TURN_START + (current - me + n) % n] = 1.0f; /* the last: game over */
    /* The final round. */
    if (get_int(view, F_FINAL_ROUND_TRIGGER, &final_round_trigger) < 0) return -1;
    if (get_int(view, F_FINAL_TURNS_LEFT, &final_turns_left) < 0) return -1;
    if (final_round_trigger >= 0) {
        v[FINAL_START] = 1.0f;
        v[FINAL_START + 1] = scaled(final_turns_left, 3);
    }
    /* A tunnel waiting for its extra cards. */
    PyObject *tunnel = PyObject_GetAttr(view, names[F_TUNNEL]);
    if (tunnel == NULL) return -1;
    if (tunnel != Py_None) {
        long base[NUM_KINDS], revealed[16], needed;
        Py_ssize_t num_revealed;
        int locomotive_only = -1;
        if (get_ints(tunnel, F_BASE, base, NUM_KINDS, 1, NULL) < 0 ||
            get_ints(tunnel, F_REVEALED, revealed, 16, 0, &num_revealed) < 0 || get_int(tunnel, F_NEEDED, &needed) < 0) {
            Py_DECREF(tunnel);
            return -1;
        }
        PyObject *flag = PyObject_GetAttr(tunnel, names[F_LOCOMOTIVE_ONLY]);
        if (flag != NULL) {
            locomotive_only = PyObject_IsTrue(flag);
            Py_DECREF(flag);
        }
        Py_DECREF(tunnel);
        if (locomotive_only < 0) return -1;
        long revealed_counts[NUM_KINDS] = {0};
        for (Py_ssize_t i = 0; i < num_revealed; i++) {
            if (!in_range(revealed[i], 0, NUM_KINDS, F_REVEALED)) return -1;
            revealed_counts[revealed[i]]++;
        }
        for (int k = 0; k < NUM_KINDS; k++) {
            v[TUNNEL_START + k] = scaled(base[k], 12);
            v[TUNNEL_START + NUM_KINDS + k] = scaled(revealed_counts[k], 3);
        }
        v[TUNNEL_START + 2 * NUM_KINDS] = scaled(needed, 3);
        v[TUNNEL_START + 2 * NUM_KINDS + 1] = locomotive_only ? 1.0f : 0.0f;
    } else {
        Py_DECREF(tunnel);
    }
    return 0;

bad_table:
    PyErr_SetString(PyExc_ValueError, "board_table is not a board table of the Nordic map");
    return -1;
}

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode(out, view, board_table, phases) takes 4 arguments");
        return NULL;
    }
    PyObject *out = args[0], *view = args[1], *table = args[2], *phases = args[3];
    if (!PyBytes_Check(table)) {
        PyErr_SetString(PyExc_TypeError, "board_table must be bytes");
        return NULL;
    }
    if (!PyTuple_Check(phases) || PyTuple_GET_SIZE(phases) != NUM_PHASES) {
        PyErr_SetString(PyExc_TypeError, "phases must be a tuple of the 6 phases");
        return NULL;
    }
    float v[SIZE];
    memset(v, 0, sizeof v);
    if (encode_into(v, view, (const unsigned char *)PyBytes_AS_STRING(table), PyBytes_GET_SIZE(table), phases) < 0)
        return NULL;
    if (PyList_CheckExact(out)) {
        if (PyList_GET_SIZE(out) != SIZE) {
            PyErr_SetString(PyExc_ValueError, "out must hold one value per cell");
            return NULL;
        }
        for (Py_ssize_t i = 0; i < SIZE; i++) {
            PyObject *cell = PyList_GET_ITEM(out, i);
            double value = (double)v[i];
            if (PyFloat_CheckExact(cell) && PyFloat_AS_DOUBLE(cell) == value) continue;
            PyObject *fresh;
            if (value == 0.0) {
                fresh = Py_NewRef(zero_float);
            } else if (value == 1.0) {
                fresh = Py_NewRef(one_float);
            } else if ((fresh = PyFloat_FromDouble(value)) == NULL) {
                return NULL;
            }
            PyList_SET_ITEM(out, i, fresh);
            Py_DECREF(cell);
        }
        Py_RETURN_NONE;
    }
    Py_buffer buffer;
    if (PyObject_GetBuffer(out, &buffer, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (buffer.len != (Py_ssize_t)sizeof v || buffer.itemsize != 4 || buffer.format == NULL ||
        strcmp(buffer.format, "f") != 0) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_ValueError, "out must be a contiguous float32 array of the vector's size");
        return NULL;
    }
    memcpy(buffer.buf, v, sizeof v);
    PyBuffer_Release(&buffer);
    Py_RETURN_NONE;
}

/* mark(mask, ids): set mask[i] = 1 for each i in ids (a list of ints); mask is a writable
 * buffer of bytes (an int8 array). An id outside the mask raises before anything is written. */
static PyObject *mark(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "mark(mask, ids) takes a mask and a list of ids");
        return NULL;
    }
    Py_buffer buffer;
    if (PyObject_GetBuffer(args[0], &buffer, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (buffer.itemsize != 1) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_ValueError, "mask must be a contiguous buffer of bytes");
        return NULL;
    }
    PyObject *ids = args[1];
    Py_ssize_t n = PyList_GET_SIZE(ids);
    for (int pass = 0; pass < 2; pass++) { /* check every id, then write */
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PyList_GET_ITEM(ids, i);
            Py_ssize_t index = PyLong_Check(item) ? PyLong_AsSsize_t(item) : -1;
            if (index == -1 && PyErr_Occurred()) {
                PyBuffer_Release(&buffer);
                return NULL;
            }
            if (index < 0 || index >= buffer.len) {
                PyBuffer_Release(&buffer);
                PyErr_SetString(PyExc_ValueError, "an id outside the mask");
                return NULL;
            }
            if (pass) ((char *)buffer.buf)[index] = 1;
        }
    }
    PyBuffer_Release(&buffer);
    Py_RETURN_NONE;
}

/* IdTable: ints by object address (what the action space's table by id() holds), kept in a C
 * open-addressing table: a lookup reads one slot instead of a dict's index, entry and key object.
 * The caller keeps the objects alive (the addresses stay theirs while they are in the table). */
typedef struct {
    PyObject_HEAD
    uintptr_t *keys; /* 0: empty */
    long *values;
    Py_ssize_t capacity, used; /* capacity: a power of two */
} IdTable;

static Py_ssize_t slot_of(uintptr_t key, Py_ssize_t mask) {
    return (Py_ssize_t)(((key >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull) >> 20) & mask;
}

static int id_table_grow(IdTable *t, Py_ssize_t capacity) {
    uintptr_t *keys = PyMem_Calloc((size_t)capacity, sizeof(uintptr_t));
    long *values = PyMem_Calloc((size_t)capacity, sizeof(long));
    if (keys == NULL || values == NULL) {
        PyMem_Free(keys);
        PyMem_Free(values);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < t->capacity; i++) {
        if (t->keys[i] == 0) continue;
        Py_ssize_t j = slot_of(t->keys[i], capacity - 1);
        while (keys[j] != 0) j = (j + 1) & (capacity - 1);
        keys[j] = t->keys[i];
        values[j] = t->values[i];
    }
    PyMem_Free(t->keys);
    PyMem_Free(t->values);
    t->keys = keys;
    t->values = values;
    t->capacity = capacity;
    return 0;
}

static PyObject *id_table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "IdTable() takes no arguments");
        return NULL;
    }
    IdTable *t = (IdTable *)type->tp_alloc(type, 0);
    if (t == NULL) return NULL;
    if (id_table_grow(t, 1024) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    return (PyObject *)t;
}

static void id_table_dealloc(IdTable *t) {
    PyMem_Free(t->keys);
    PyMem_Free(t->values);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* put(address, value): the int value of the object at address (an id()). */
static PyObject *id_table_put(IdTable *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "put(address, value) takes 2 arguments");
        return NULL;
    }
    uintptr_t key = (uintptr_t)PyLong_AsVoidPtr(args[0]);
    if (key == 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "address 0");
        return NULL;
    }
    long value = PyLong_AsLong(args[1]);
    if (value == -1 && PyErr_Occurred()) return NULL;
    if (2 * (t->used + 1) > t->capacity && id_table_grow(t, 2 * t->capacity) < 0) return NULL;
    Py_ssize_t mask = t->capacity - 1, j = slot_of(key, mask);
    while (t->keys[j] != 0 && t->keys[j] != key) j = (j + 1) & mask;
    if (t->keys[j] == 0) {
        t->keys[j] = key;
        t->used++;
    }
    t->values[j] = value;
    Py_RETURN_NONE;
}

/* lookup(objects): the values of a list of objects, or None when one is not in the table. */
static PyObject *id_table_lookup(IdTable *t, PyObject *objects) {
    if (!PyList_CheckExact(objects)) {
        PyErr_SetString(PyExc_TypeError, "lookup() takes a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(objects), mask = t->capacity - 1;
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        uintptr_t key = (uintptr_t)PyList_GET_ITEM(objects, i);
        Py_ssize_t j = slot_of(key, mask);
        while (t->keys[j] != key) {
            if (t->keys[j] == 0) {
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
            j = (j + 1) & mask;
        }
        PyObject *value = PyLong_FromLong(t->values[j]);
        if (value == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, value);
    }
    return out;
}

static PyObject *id_table_clear(IdTable *t, PyObject *unused) {
    memset(t->keys, 0, (size_t)t->capacity * sizeof(uintptr_t));
    t->used = 0;
    Py_RETURN_NONE;
}

static Py_ssize_t id_table_len(IdTable *t) { return t->used; }

static PyMethodDef id_table_methods[] = {
    {"put", (PyCFunction)(void (*)(void))id_table_put, METH_FASTCALL, "put(address, value)"},
    {"lookup", (PyCFunction)id_table_lookup, METH_O, "lookup(objects) -> list of values, or None"},
    {"clear", (PyCFunction)id_table_clear, METH_NOARGS, "forget every entry"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods id_table_sequence = {.sq_length = (lenfunc)id_table_len};

static PyTypeObject IdTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.rl._fastobs.IdTable",
    .tp_basicsize = sizeof(IdTable),
    .tp_dealloc = (destructor)id_table_dealloc,
    .tp_as_sequence = &id_table_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Ints by object address (see _fastobs.c).",
    .tp_methods = id_table_methods,
    .tp_new = id_table_new,
};

static PyMethodDef methods[] = {
    {"mark", (PyCFunction)(void (*)(void))mark, METH_FASTCALL, "mark(mask, ids): set the mask's cell of each id to 1."},
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(out, view, board_table, phases): write the observation of view into out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastobs", "The observation vector in C.", -1, methods};

PyMODINIT_FUNC PyInit__fastobs(void) {
    for (int i = 0; i < F_COUNT; i++) {
        if ((names[i] = PyUnicode_InternFromString(field_names[i])) == NULL) return NULL;
    }
    if ((zero_float = PyFloat_FromDouble(0.0)) == NULL || (one_float = PyFloat_FromDouble(1.0)) == NULL) return NULL;
    if (PyType_Ready(&IdTableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&IdTableType);
    if (PyModule_AddObject(m, "IdTable", (PyObject *)&IdTableType) < 0) {
        Py_DECREF(&IdTableType);
        Py_DECREF(m);
        return NULL;
    }
    PyObject *layout = Py_BuildValue("(iiiiiiiiiiii)", SIZE, ROUTES_END, KNOWN_START, DISPLAY_START, PILES_START,
                                     TICKETS_START, OFFER_START, TICKETS_END, PHASE_START, TURN_START, FINAL_START,
                                     TUNNEL_START);
    if (layout == NULL || PyModule_AddObject(m, "LAYOUT", layout) < 0) {
        Py_XDECREF(layout);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
