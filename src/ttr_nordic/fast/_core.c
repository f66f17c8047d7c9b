/* The compiled core of the Nordic Countries rules (official rules, 2-3 players): setup, legal
 * actions, transitions and scoring, with the same randomness as the Python engine, so that a
 * game is its config, seed and actions in both (tests/fast/ compares them decision by decision).
 *
 * Randomness: Python's random.Random is MT19937 seeded with init_by_array from the seed's
 * 32-bit words (abs value, least significant first); shuffle() and randrange() draw with
 * _randbelow_with_getrandbits. Both are implemented here exactly, so the core deals, reshuffles
 * and reveals the very cards the engine does.
 *
 * Legal actions are listed in the engine's order (GameRules.legal_action_list): face-up slots,
 * the blind draw, tickets, then each claimable route's payments in route order, each route's
 * payments in the order of engine/payments.py; Pass when nothing else is legal.
 *
 * An action is a 64-bit code: bits 0-2 the type (ACT_* below), bits 3-10 the slot or route,
 * bits 11-46 nine 4-bit card counts (claims, extra payments) or bits 11+ a mask of ticket ids
 * (keep). ttr_nordic.fast.codec converts codes to and from engine actions.
 *
 * The board is read from the engine's Board through ttr_nordic.fast (CoreBoard below), never
 * from constants copied here.
 *
 * One translation unit in parts: _random.h (random.Random), _rules.h (state, legal actions,
 * transitions), _scoring.h, _policy.h (Route Focus), this file's Python types, _batch.h (the
 * batched environment), _env.h (one game's RL ids, observations and masks), _env_steps.h (the
 * environments' steps), _state_io.h (engine states in and out, play-outs) and _chance.h (chosen
 * draws: OpenSpiel's chance nodes).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_ROUTES 120
#define MAX_TICKETS 52
#define MAX_CITIES 64
#define NK 9
#define LOCO 8
#define GRAY (-1)
#define EMPTY (-1)
#define SLOTS 5
#define MAX_PLAYERS 3
#define DECK_SIZE 110
#define TRAINS_PER_PLAYER 40

enum { K_REGULAR, K_FERRY, K_TUNNEL, K_SPECIAL };
/* The engine's Phase members in definition order. */
enum { PH_INITIAL_TICKETS, PH_CHOOSE_ACTION, PH_SECOND_CARD, PH_KEEP_TICKETS, PH_TUNNEL_EXTRA, PH_GAME_OVER };
enum { ACT_FACE_UP, ACT_BLIND, ACT_TICKETS, ACT_KEEP, ACT_CLAIM, ACT_EXTRA, ACT_DECLINE, ACT_PASS };

static const int FULL_DECK[NK] = {12, 12, 12, 12, 12, 12, 12, 12, 14};

#include "_random.h"
#include "_rules.h"
#include "_scoring.h"
#include "_policy.h"

/* ----------------------------------------------------------------------- Python types */

typedef struct {
    PyObject_HEAD BoardT b;
} CoreBoard;

static PyTypeObject CoreBoardType;

static int int_item(PyObject *seq, Py_ssize_t i, int *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (item == NULL) return -1;
    long v = PyLong_AsLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

/* CoreBoard(routes, tickets, cities): routes are (a, b, length, color, kind, ferry_locomotives,
 * twin, points) with kind 0 regular, 1 ferry, 2 tunnel, 3 special and -1 for gray / no twin;
 * tickets are (a, b, points). */
static int CoreBoard_init(CoreBoard *self, PyObject *args, PyObject *kwds) {
    PyObject *routes, *tickets;
    int cities;
    static char *kwlist[] = {"routes", "tickets", "cities", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOi", kwlist, &routes, &tickets, &cities)) return -1;
    Py_ssize_t nr = PySequence_Length(routes), nt = PySequence_Length(tickets);
    if (nr < 0 || nt < 0) return -1;
    if (nr < 1 || nr > MAX_ROUTES || nt < 1 || nt > MAX_TICKETS || cities < 2 || cities > MAX_CITIES) {
        PyErr_Format(PyExc_ValueError, "the core takes 1-%d routes, 1-%d tickets and 2-%d cities", MAX_ROUTES,
                     MAX_TICKETS, MAX_CITIES);
        return -1;
    }
    BoardT *b = &self->b;
    b->n_routes = (int)nr;
    b->n_tickets = (int)nt;
    b->n_cities = cities;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *r = PySequence_GetItem(routes, i);
        if (r == NULL) return -1;
        int v[8], bad = PySequence_Length(r) != 8;
        for (int k = 0; k < 8 && !bad; k++) bad = int_item(r, k, &v[k]) != 0;
        Py_DECREF(r);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a route is 8 ints");
            return -1;
        }
        if (v[0] < 0 || v[0] >= cities || v[1] < 0 || v[1] >= cities || v[2] < 1 || v[2] > 9 || v[3] < -1 ||
            v[3] > 7 || v[4] < 0 || v[4] > 3 || v[5] < 0 || v[5] > v[2] || v[6] < -1 || v[6] >= nr) {
            PyErr_Format(PyExc_ValueError, "route %zd is out of range", i);
            return -1;
        }
        RouteT *rt = &b->routes[i];
        rt->a = v[0], rt->b = v[1], rt->length = v[2], rt->color = v[3], rt->kind = v[4];
        rt->ferry_locos = v[5], rt->twin = v[6], rt->points = v[7];
        board_prepare(rt);
    }
    for (int c = 0; c < cities; c++) {
        int degree = 0;
        for (int r = 0; r < b->n_routes; r++) degree += (b->routes[r].a == c) + (b->routes[r].b == c);
        if (degree > 16) {
            PyErr_Format(PyExc_ValueError, "city %d has more than 16 routes", c);
            return -1;
        }
    }
    board_masks(b);
    policy_tables(b);
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *t = PySequence_GetItem(tickets, i);
        if (t == NULL) return -1;
        int v[3], bad = PySequence_Length(t) != 3;
        for (int k = 0; k < 3 && !bad; k++) bad = int_item(t, k, &v[k]) != 0;
        Py_DECREF(t);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a ticket is 3 ints");
            return -1;
        }
        if (v[0] < 0 || v[0] >= cities || v[1] < 0 || v[1] >= cities) {
            PyErr_Format(PyExc_ValueError, "ticket %zd is out of range", i);
            return -1;
        }
        b->tickets[i].a = v[0], b->tickets[i].b = v[1], b->tickets[i].points = v[2];
    }
    return 0;
}

static PyTypeObject CoreBoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreBoard",
    .tp_basicsize = sizeof(CoreBoard),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreBoard_init,
    .tp_doc = "The board's numbers for the core: CoreBoard(routes, tickets, cities).",
};

typedef struct {
    PyObject_HEAD CoreBoard *board;
    State s;
    Buf legal;
    /* The environments' legal codes and ids (_env.h), for the decision after env_at actions. */
    Buf env_legal;
    int *env_ids, env_cap, env_at;
    const void *env_space;
} CoreGame;

static PyTypeObject CoreGameType;

static void CoreGame_dealloc(CoreGame *self) {
    Py_XDECREF(self->board);
    free(self->legal.v);
    free(self->env_legal.v);
    free(self->env_ids);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static CoreGame *new_game(CoreBoard *board) {
    CoreGame *g = PyObject_New(CoreGame, &CoreGameType);
    if (g == NULL) return NULL;
    Py_INCREF(board);
    g->board = board;
    g->legal.v = NULL;
    g->legal.n = g->legal.cap = 0;
    g->env_legal.v = NULL;
    g->env_legal.n = g->env_legal.cap = 0;
    g->env_ids = NULL;
    g->env_cap = 0;
    g->env_at = -1;
    g->env_space = NULL;
    return g;
}

/* CoreGame(board, players, seed, first_player=-1): GameState.new's game. */
static PyObject *CoreGame_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *board, *seed;
    int players, first = -1;
    static char *kwlist[] = {"board", "players", "seed", "first_player", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!iO|i", kwlist, &CoreBoardType, &board, &players, &seed, &first))
        return NULL;
    if (players < 2 || players > 3 || first < -1 || first >= players) {
        PyErr_SetString(PyExc_ValueError, "the core plays 2 or 3 players, first_player -1 or a seat");
        return NULL;
    }
    if (!PyLong_Check(seed)) {
        PyErr_SetString(PyExc_TypeError, "the seed must be an int");
        return NULL;
    }
    CoreGame *g = new_game((CoreBoard *)board);
    if (g == NULL) return NULL;
    if (mt_seed_object(&g->s.rng, seed)) {
        Py_DECREF(g);
        return NULL;
    }
    setup(&g->s, &g->board->b, players, first);
    return (PyObject *)g;
}

static PyObject *CoreGame_clone(CoreGame *self, PyObject *unused) {
    CoreGame *g = new_game(self->board);
    if (g == NULL) return NULL;
    g->s = self->s;
    return (PyObject *)g;
}

static PyObject *codes_list(const Buf *b) {
    PyObject *out = PyList_New(b->n);
    if (out == NULL) return NULL;
    for (int i = 0; i < b->n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(b->v[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *CoreGame_legal(CoreGame *self, PyObject *unused) {
    if (legal_actions(&self->s, &self->board->b, &self->legal)) return PyErr_NoMemory();
    return codes_list(&self->legal);
}

/* apply(code): the action must be one of legal()'s codes now (checked: a ValueError otherwise). */
static PyObject *CoreGame_apply(CoreGame *self, PyObject *arg) {
    uint64_t code = PyLong_AsUnsignedLongLong(arg);
    if (code == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (legal_actions(&self->s, &self->board->b, &self->legal)) return PyErr_NoMemory();
    for (int i = 0; i < self->legal.n; i++) {
        if (self->legal.v[i] == code) {
            apply_action(&self->s, &self->board->b, code);
            Py_RETURN_NONE;
        }
    }
    PyErr_Format(PyExc_ValueError, "action code %llu is not legal now", (unsigned long long)code);
    return NULL;
}

static PyObject *int_list(const int *v, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

static PyObject *byte_list(const uint8_t *v, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

/* state(): every field, as ttr_nordic.fast.state_fields lists them for an engine GameState. */
static PyObject *CoreGame_state(CoreGame *self, PyObject *unused) {
    State *s = &self->s;
    int n = s->players;
    PyObject *hands = PyList_New(n), *known = PyList_New(n), *tickets = PyList_New(n), *returned = PyList_New(n),
             *offers = PyList_New(n);
    for (int p = 0; p < n; p++) {
        PyList_SET_ITEM(hands, p, int_list(s->hands[p], NK));
        PyList_SET_ITEM(known, p, int_list(s->known[p], NK));
        PyList_SET_ITEM(tickets, p, byte_list(s->tickets[p], s->n_tickets[p]));
        PyList_SET_ITEM(returned, p, byte_list(s->returned[p], s->n_returned[p]));
        PyList_SET_ITEM(offers, p, byte_list(s->offers[p], s->n_offer[p]));
    }
    int owner[MAX_ROUTES];
    for (int r = 0; r < self->board->b.n_routes; r++) owner[r] = s->owner[r];
    PyObject *tunnel;
    if (s->tunnel_active)
        tunnel = Py_BuildValue("(iNNiii)", s->t_route, int_list(s->t_base, NK), int_list(s->t_revealed, s->t_n_revealed),
                               s->t_needed, s->t_color, s->t_loco_only);
    else
        tunnel = Py_NewRef(Py_None);
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:i,s:i,s:i,s:N,s:i,s:i,s:i,s:i}", "deck",
                         byte_list(s->deck, s->deck_n), "discard", int_list(s->discard, NK), "display",
                         int_list(s->display, SLOTS), "hands", hands, "known", known, "tickets", tickets,
                         "returned_tickets", returned, "ticket_deck", byte_list(s->tdeck, s->tdeck_n), "offers",
                         offers, "route_owner", int_list(owner, self->board->b.n_routes), "trains",
                         int_list(s->trains, n), "scores", int_list(s->scores, n), "current", s->current, "phase",
                         s->phase, "first_player", s->first_player, "tunnel", tunnel, "final_turns_left",
                         s->final_turns_left, "final_round_trigger", s->final_round_trigger, "consecutive_passes",
                         s->consecutive_passes, "turn", s->turn);
}

static PyObject *result_tuple(const Result *r, int n) {
    static const char *decided[4] = {"score", "tickets", "longest path", "shared"};
    return Py_BuildValue("(NNNNNNNs)", int_list(r->route_points, n), int_list(r->ticket_points, n),
                         int_list(r->completed, n), int_list(r->globetrotter, n), int_list(r->longest, n),
                         int_list(r->total, n), int_list(r->winners, r->n_winners), decided[r->decided_by]);
}

/* result(): (route points, ticket points, tickets completed, globetrotter, longest trail,
 * totals, winners, decided_by), each a list per player but the last two. */
static PyObject *CoreGame_result(CoreGame *self, PyObject *unused) {
    Result r;
    score(&self->s, &self->board->b, &r, 1);
    return result_tuple(&r, self->s.players);
}

static PyObject *CoreGame_get_phase(CoreGame *self, void *c) { return PyLong_FromLong(self->s.phase); }
static PyObject *CoreGame_get_current(CoreGame *self, void *c) { return PyLong_FromLong(self->s.current); }
static PyObject *CoreGame_get_players(CoreGame *self, void *c) { return PyLong_FromLong(self->s.players); }
static PyObject *CoreGame_get_actions(CoreGame *self, void *c) { return PyLong_FromLong(self->s.n_actions); }
static PyObject *CoreGame_get_is_over(CoreGame *self, void *c) { return PyBool_FromLong(self->s.phase == PH_GAME_OVER); }

static PyGetSetDef CoreGame_getset[] = {
    {"phase", (getter)CoreGame_get_phase, NULL, "the phase, as the index of the engine's Phase member", NULL},
    {"current", (getter)CoreGame_get_current, NULL, "the seat to decide", NULL},
    {"players", (getter)CoreGame_get_players, NULL, "the number of players", NULL},
    {"actions", (getter)CoreGame_get_actions, NULL, "actions applied so far", NULL},
    {"is_over", (getter)CoreGame_get_is_over, NULL, "whether the game is over", NULL},
    {NULL},
};

static PyObject *CoreGame_rng_state(CoreGame *self, PyObject *unused);
static PyObject *CoreGame_play_out(CoreGame *self, PyObject *args);
static PyObject *CoreGame_features(CoreGame *self, PyObject *arg);
static PyObject *CoreGame_legal_ids(CoreGame *self, PyObject *arg);
static PyObject *CoreGame_apply_id(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_observe(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_mask(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_end_rewards(CoreGame *self, PyObject *arg);
static PyObject *CoreGame_observation(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_step_id(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_observations(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_parallel_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_apply_drawn(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_sorted_ids(CoreGame *self, PyObject *arg);
static PyObject *CoreGame_observation_values(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_gym_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);
static PyObject *CoreGame_aec_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs);

static PyMethodDef CoreGame_methods[] = {
    {"clone", (PyCFunction)CoreGame_clone, METH_NOARGS, "an independent copy"},
    {"legal", (PyCFunction)CoreGame_legal, METH_NOARGS, "the legal action codes, in the engine's order"},
    {"apply", (PyCFunction)CoreGame_apply, METH_O, "apply one legal action code"},
    {"state", (PyCFunction)CoreGame_state, METH_NOARGS, "every field of the state, as a dict"},
    {"result", (PyCFunction)CoreGame_result, METH_NOARGS, "the final scoring"},
    {"rng_state", (PyCFunction)CoreGame_rng_state, METH_NOARGS, "the generator's words and position"},
    {"play_out", (PyCFunction)CoreGame_play_out, METH_VARARGS, "finish the game with Route Focus everywhere"},
    {"features", (PyCFunction)CoreGame_features, METH_O, "the value model's features of a player's view"},
    {"legal_ids", (PyCFunction)CoreGame_legal_ids, METH_O, "the legal RL action ids (a CoreSpace's)"},
    {"apply_id", (PyCFunction)(void (*)(void))CoreGame_apply_id, METH_FASTCALL,
     "apply the legal action of an RL id; its code"},
    {"observe", (PyCFunction)(void (*)(void))CoreGame_observe, METH_FASTCALL,
     "a seat's observation vector into a float32 array"},
    {"mask", (PyCFunction)(void (*)(void))CoreGame_mask, METH_FASTCALL, "the legal ids' mask into an int8 array"},
    {"end_rewards", (PyCFunction)CoreGame_end_rewards, METH_O, "each seat's end reward (win: +1/-1, else margin)"},
    {"observation", (PyCFunction)(void (*)(void))CoreGame_observation, METH_FASTCALL,
     "a seat's observation and action mask as fresh arrays (a dict), or the vector alone"},
    {"step_id", (PyCFunction)(void (*)(void))CoreGame_step_id, METH_FASTCALL,
     "apply_id, the code appended to a list; the next decision's legal ids"},
    {"observations", (PyCFunction)(void (*)(void))CoreGame_observations, METH_FASTCALL,
     "every seat's observation(space, seat), by agent name (a dict)"},
    {"parallel_step", (PyCFunction)(void (*)(void))CoreGame_parallel_step, METH_FASTCALL,
     "the parallel environment's step: (observations, rewards, terminations, truncations, infos)"},
    {"apply_drawn", (PyCFunction)(void (*)(void))CoreGame_apply_drawn, METH_FASTCALL,
     "apply a legal id with chosen draws: the next legal ids (ascending), or the next draw's (pile, outcomes)"},
    {"sorted_ids", (PyCFunction)CoreGame_sorted_ids, METH_O, "the legal RL action ids, ascending"},
    {"observation_values", (PyCFunction)(void (*)(void))CoreGame_observation_values, METH_FASTCALL,
     "a seat's observation vector as a list of floats"},
    {"gym_step", (PyCFunction)(void (*)(void))CoreGame_gym_step, METH_FASTCALL,
     "the Gymnasium environment's step: the learner's id, the opponents the core plays; the observation"},
    {"aec_step", (PyCFunction)(void (*)(void))CoreGame_aec_step, METH_FASTCALL,
     "the AEC environment's step: the id applied, the infos' legal ids; the agent to decide next"},
    {NULL},
};

static PyTypeObject CoreGameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreGame",
    .tp_basicsize = sizeof(CoreGame),
    .tp_dealloc = (destructor)CoreGame_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = CoreGame_new,
    .tp_methods = CoreGame_methods,
    .tp_getset = CoreGame_getset,
    .tp_doc = "A game in the compiled core: CoreGame(board, players, seed, first_player=-1).",
};

/* play_random(board, players, first_seed, games): one game per seed s in first_seed..+games,
 * dealt as GameState.new(players, seed=s) and played with random.Random(s).choice over the legal
 * list (the same games as benchmarks/engine_speed.py's Python path). Returns (actions, a list
 * of the totals of every game, flattened). */
static PyObject *play_random(PyObject *mod, PyObject *args) {
    CoreBoard *board;
    int players;
    long long first_seed, games;
    if (!PyArg_ParseTuple(args, "O!iLL", &CoreBoardType, &board, &players, &first_seed, &games)) return NULL;
    if (players < 2 || players > 3 || first_seed < 0 || games < 0 || games > 100000000) {
        PyErr_SetString(PyExc_ValueError, "2 or 3 players, a non-negative first seed, 0 to 10**8 games");
        return NULL;
    }
    Buf legal = {NULL, 0, 0};
    State *s = (State *)malloc(sizeof(State));
    int *totals = (int *)malloc((size_t)(games * players + 1) * sizeof(int));
    long long actions = 0;
    int failed = s == NULL || totals == NULL;
    Py_BEGIN_ALLOW_THREADS;
    for (long long g = 0; g < games && !failed; g++) {
        MT chooser;
        uint64_t seed = (uint64_t)(first_seed + g);
        mt_seed_u64(&s->rng, seed);
        mt_seed_u64(&chooser, seed);
        setup(s, &board->b, players, -1);
        while (s->phase != PH_GAME_OVER) {
            if (legal_actions(s, &board->b, &legal)) {
                failed = 1;
                break;
            }
            apply_action(s, &board->b, legal.v[mt_below(&chooser, (uint32_t)legal.n)]);
        }
        actions += s->n_actions;
        Result r;
        score(s, &board->b, &r, 0);
        for (int p = 0; p < players; p++) totals[g * players + p] = r.total[p];
    }
    Py_END_ALLOW_THREADS;
    PyObject *out = failed ? PyErr_NoMemory() : PyList_New((Py_ssize_t)(games * players));
    for (long long i = 0; out != NULL && i < games * players; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(totals[i]));
    free(s);
    free(totals);
    free(legal.v);
    if (out == NULL) return NULL;
    return Py_BuildValue("(LN)", actions, out);
}

#include "_batch.h"
#include "_env.h"
#include "_env_steps.h"
#include "_parallel.h"
#include "_state_io.h"
#include "_chance.h"
#include "_spiel.h"

/* ------------------------------------------------------------------------ Route Focus agents */

typedef struct {
    PyObject_HEAD Agent agent;
} CoreAgent;

static PyTypeObject CoreAgentType;

/* CoreAgent(seed, light=False, long_weights=False): RouteFocusAgent(seed=seed), or with light
 * LightRouteFocus, with long_weights their long-route variants (LongRouteFocus, LightLongRouteFocus). */
static int CoreAgent_init(CoreAgent *self, PyObject *args, PyObject *kwds) {
    PyObject *seed;
    int light = 0, long_weights = 0;
    static char *kwlist[] = {"seed", "light", "long_weights", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|pp", kwlist, &seed, &light, &long_weights)) return -1;
    if (!PyLong_Check(seed)) {
        PyErr_SetString(PyExc_TypeError, "the seed must be an int");
        return -1;
    }
    memset(&self->agent, 0, sizeof(Agent));
    if (mt_seed_object(&self->agent.rng, seed)) return -1;
    self->agent.light = light;
    self->agent.long_weights = long_weights;
    return 0;
}

/* choose(game): the code of the agent's action in the game's current decision. */
static PyObject *CoreAgent_choose(CoreAgent *self, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, &CoreGameType)) {
        PyErr_SetString(PyExc_TypeError, "choose() takes a CoreGame");
        return NULL;
    }
    CoreGame *g = (CoreGame *)arg;
    if (g->s.phase == PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    int index;
    if (policy_choose(&g->s, &g->board->b, &self->agent, &g->legal, &index)) return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(g->legal.v[index]);
}

/* An independent copy (the agent holds no pointers: its struct is its whole state). */
static PyObject *CoreAgent_copy(CoreAgent *self, PyObject *unused) {
    CoreAgent *copy = PyObject_New(CoreAgent, &CoreAgentType);
    if (copy == NULL) return NULL;
    copy->agent = self->agent;
    return (PyObject *)copy;
}

static PyMethodDef CoreAgent_methods[] = {
    {"choose", (PyCFunction)CoreAgent_choose, METH_O, "the agent's action code for the game's decision"},
    {"__copy__", (PyCFunction)CoreAgent_copy, METH_NOARGS, "an independent copy"},
    {"__deepcopy__", (PyCFunction)CoreAgent_copy, METH_O, "an independent copy"},
    {NULL},
};

static PyTypeObject CoreAgentType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreAgent",
    .tp_basicsize = sizeof(CoreAgent),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreAgent_init,
    .tp_methods = CoreAgent_methods,
    .tp_doc = "Route Focus in the core: CoreAgent(seed, light=False, long_weights=False).",
};

static Agent *route_focus_of(PyObject *obj) {
    return PyObject_TypeCheck(obj, &CoreAgentType) ? &((CoreAgent *)obj)->agent : NULL;
}

/* play_route_focus(board, players, first_seed, games, light): Route Focus against Route Focus as
 * benchmarks/engine_speed.py plays it (GameState.new(players, seed=s), the agent of seat q seeded
 * s * players + q). Returns (actions, every game's totals). */
static PyObject *play_route_focus(PyObject *mod, PyObject *args) {
    CoreBoard *board;
    int players, light;
    long long first_seed, games;
    if (!PyArg_ParseTuple(args, "O!iLLp", &CoreBoardType, &board, &players, &first_seed, &games, &light)) return NULL;
    if (players < 2 || players > 3 || first_seed < 0 || games < 0 || games > 100000000) {
        PyErr_SetString(PyExc_ValueError, "2 or 3 players, a non-negative first seed, 0 to 10**8 games");
        return NULL;
    }
    Buf legal = {NULL, 0, 0};
    State *s = (State *)malloc(sizeof(State));
    Agent *agents = (Agent *)calloc(3, sizeof(Agent));
    int *totals = (int *)malloc((size_t)(games * players + 1) * sizeof(int));
    long long actions = 0;
    int failed = s == NULL || agents == NULL || totals == NULL;
    Py_BEGIN_ALLOW_THREADS;
    for (long long g = 0; g < games && !failed; g++) {
        uint64_t seed = (uint64_t)(first_seed + g);
        mt_seed_u64(&s->rng, seed);
        setup(s, &board->b, players, -1);
        for (int q = 0; q < players; q++) {
            memset(&agents[q], 0, sizeof(Agent));
            mt_seed_u64(&agents[q].rng, seed * (uint64_t)players + (uint64_t)q);
            agents[q].light = light;
        }
        while (s->phase != PH_GAME_OVER && s->n_actions < 10000) {
            int index;
            if (policy_choose(s, &board->b, &agents[s->current], &legal, &index)) {
                failed = 1;
                break;
            }
            apply_action(s, &board->b, legal.v[index]);
        }
        actions += s->n_actions;
        Result r;
        score(s, &board->b, &r, 0);
        for (int p = 0; p < players; p++) totals[g * players + p] = r.total[p];
    }
    Py_END_ALLOW_THREADS;
    PyObject *out = failed ? PyErr_NoMemory() : PyList_New((Py_ssize_t)(games * players));
    for (long long i = 0; out != NULL && i < games * players; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(totals[i]));
    free(s);
    free(agents);
    free(totals);
    free(legal.v);
    if (out == NULL) return NULL;
    return Py_BuildValue("(LN)", actions, out);
}

static PyMethodDef module_methods[] = {
    {"play_random", play_random, METH_VARARGS, "play seeded random games; (actions, totals)"},
    {"from_fields", from_fields, METH_VARARGS, "a game from an engine state's fields and generator"},
    {"play_route_focus", play_route_focus, METH_VARARGS, "play seeded Route Focus games; (actions, totals)"},
    {"dealt", dealt, METH_VARARGS, "the deal with chosen draws: a game, or the next draw's (pile, outcomes)"},
    {"chance_setup", chance_setup, METH_VARARGS, "the board, space and OpenSpiel player ids of ChanceNode"},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled core of the Nordic Countries rules.", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreBoardType) < 0 || PyType_Ready(&CoreGameType) < 0 || PyType_Ready(&CoreBatchType) < 0 ||
        PyType_Ready(&CoreSpaceType) < 0 ||
        PyType_Ready(&CoreAgentType) < 0 || PyType_Ready(&ChanceNodeType) < 0 || PyType_Ready(&ParallelStepType) < 0)
        return NULL;
    scaled_tables_init();
    if ((key_observation = PyUnicode_InternFromString("observation")) == NULL ||
        (key_action_mask = PyUnicode_InternFromString("action_mask")) == NULL ||
        (key_active_agent = PyUnicode_InternFromString("active_agent")) == NULL ||
        (key_illegal_action = PyUnicode_InternFromString("illegal_action")) == NULL ||
        (key_legal_ids = PyUnicode_InternFromString("legal_ids")) == NULL ||
        (key_seat = PyUnicode_InternFromString("seat")) == NULL ||
        (key_agents = PyUnicode_InternFromString("agents")) == NULL ||
        (key_agent_to_move = PyUnicode_InternFromString("agent_to_move")) == NULL ||
        (zero_reward = PyFloat_FromDouble(0.0)) == NULL ||
        (name_getrandbits = PyUnicode_InternFromString("getrandbits")) == NULL)
        return NULL;
    if ((key_card_pile = PyUnicode_InternFromString("card")) == NULL ||
        (key_ticket_pile = PyUnicode_InternFromString("ticket")) == NULL ||
        (key_first_pile = PyUnicode_InternFromString("first")) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "CoreBoard", (PyObject *)&CoreBoardType) < 0 ||
        PyModule_AddObjectRef(m, "CoreGame", (PyObject *)&CoreGameType) < 0 ||
        PyModule_AddObjectRef(m, "CoreBatch", (PyObject *)&CoreBatchType) < 0 ||
        PyModule_AddObjectRef(m, "CoreSpace", (PyObject *)&CoreSpaceType) < 0 ||
        PyModule_AddObjectRef(m, "CoreAgent", (PyObject *)&CoreAgentType) < 0 ||
        PyModule_AddObjectRef(m, "ChanceNode", (PyObject *)&ChanceNodeType) < 0 ||
        PyModule_AddObjectRef(m, "ParallelStep", (PyObject *)&ParallelStepType) < 0 ||
        PyModule_AddIntConstant(m, "NUMPY_API", NUMPY_API) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *api = PyCapsule_New(&spiel_api, SPIEL_API_CAPSULE, NULL); /* _spiel.h's C API */
    if (api == NULL || PyModule_AddObjectRef(m, "_spiel_api", api) < 0) {
        Py_XDECREF(api);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(api);
    return m;
}
