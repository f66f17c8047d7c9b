/* OpenSpiel's node in plain C: the position of rl/openspiel.py's chance model (a chance node for
 * the first player, one for every card and ticket dealt and for every later draw) held in a C
 * struct, for a game written in C++ against OpenSpiel (rl/spiel_native/). The same steps as
 * ChanceNode (_chance.h) without a Python object: a player's action runs on a copy of the state
 * with no draw chosen; where it draws, the node becomes that draw's chance node, and each outcome
 * runs the pending action again from the state before it with the draws chosen so far.
 * Exported as a capsule (ttr_nordic.fast._core._spiel_api, the struct of _spiel_api.h): every
 * call but spiel_setup needs no interpreter lock, and nodes are independent of each other (a
 * caller may step different nodes in different threads). Part of the compiled core: included by
 * _core.c, after _chance.h. */
/* ----------------------------------------------------------------------- OpenSpiel's plain node */

#include "_spiel_api.h"

struct SpielNode {
    State s;      /* the game once dealt; at a draw's chance node, the game before the pending action */
    int has_game; /* whether the deal is done */
    int players, first, pending, player, n_chosen;
    uint64_t pending_code; /* the pending action's code (at a draw's chance node after a decision) */
    long chosen[MAX_CHOSEN];
    int chance_kind, n_outcomes; /* SPIEL_PILE_* (-1: not a chance node) and its outcomes, ascending */
    long outcomes[MAX_TICKETS]; /* plan_weights' (the most a pile can give: the tickets) */
    double probs[MAX_TICKETS];
    int n_ids;      /* the legal ids, ascending, and their codes at the same index */
    int *ids;       /* capacity: legal.cap */
    Buf legal;      /* the codes (legal_actions' order until sorted with the ids) */
};

static CoreBoard *spiel_board; /* spiel_setup's: the nodes' board and action ids */
static CoreSpace *spiel_space;

/* The board and action space every node plays on (a CoreBoard and its CoreSpace); 0, or -1 with
 * a Python exception set. Needs the interpreter lock; call it once, before any node. */
static int spiel_setup(PyObject *board, PyObject *space) {
    if (!PyObject_TypeCheck(board, &CoreBoardType) || !PyObject_TypeCheck(space, &CoreSpaceType)) {
        PyErr_SetString(PyExc_TypeError, "spiel_setup(board, space) takes a CoreBoard and a CoreSpace");
        return -1;
    }
    if (((CoreSpace *)space)->board != (CoreBoard *)board) {
        PyErr_SetString(PyExc_ValueError, "the CoreSpace is of another board");
        return -1;
    }
    Py_XSETREF(spiel_board, (CoreBoard *)Py_NewRef(board));
    Py_XSETREF(spiel_space, (CoreSpace *)Py_NewRef(space));
    if (!dealing_rng_ready) {
        mt_seed_u64(&dealing_rng, 0);
        dealing_rng_ready = 1;
    }
    return 0;
}

static void spiel_free(SpielNode *node) {
    if (node == NULL) return;
    free(node->legal.v);
    free(node->ids);
    free(node);
}

/* A new node: the chance node of the first player (outcomes: the seats, evenly); NULL when out
 * of memory or players is not 2 or 3. */
static SpielNode *spiel_new(int players) {
    if (players < 2 || players > MAX_PLAYERS) return NULL;
    SpielNode *node = (SpielNode *)calloc(1, sizeof(SpielNode));
    if (node == NULL) return NULL;
    node->players = players;
    node->first = node->pending = -1;
    node->player = SPIEL_CHANCE;
    node->chance_kind = SPIEL_PILE_FIRST;
    node->n_outcomes = players;
    for (int p = 0; p < players; p++) {
        node->outcomes[p] = p;
        node->probs[p] = 1.0 / (double)players;
    }
    return node;
}

/* An independent copy; NULL when out of memory. */
static SpielNode *spiel_clone(const SpielNode *node) {
    SpielNode *out = (SpielNode *)malloc(sizeof(SpielNode));
    if (out == NULL) return NULL;
    memcpy(out, node, sizeof(SpielNode));
    out->legal.v = NULL;
    out->ids = NULL;
    out->legal.n = out->legal.cap = 0;
    if (node->legal.cap > 0) {
        out->legal.v = (uint64_t *)malloc((size_t)node->legal.cap * sizeof(uint64_t));
        out->ids = (int *)malloc((size_t)node->legal.cap * sizeof(int));
        if (out->legal.v == NULL || out->ids == NULL) {
            spiel_free(out);
            return NULL;
        }
        memcpy(out->legal.v, node->legal.v, (size_t)node->legal.n * sizeof(uint64_t));
        memcpy(out->ids, node->ids, (size_t)node->legal.n * sizeof(int));
        out->legal.n = node->legal.n;
        out->legal.cap = node->legal.cap;
    }
    return out;
}

/* The draw the plan stopped at as the node's chance outcomes (plan_weights: plan_outcomes' values). */
static void spiel_chance_of(SpielNode *node, const DrawPlan *plan) {
    int outcomes[MAX_TICKETS], weights[MAX_TICKETS];
    int n = plan_weights(plan, outcomes, weights);
    for (int i = 0; i < n; i++) {
        node->outcomes[i] = outcomes[i];
        node->probs[i] = (double)weights[i] / (double)plan->n_items;
    }
    node->n_outcomes = n;
    node->chance_kind = plan->pile == 0 ? SPIEL_PILE_CARD : SPIEL_PILE_TICKET;
    node->player = SPIEL_CHANCE;
}

/* The decision's legal codes and ids, the ids ascending (their codes with them); -1 when out of
 * memory or an action has no id (not reached: the space covers every action). */
static int spiel_list_legal(SpielNode *node) {
    Buf *legal = &node->legal;
    legal->n = 0;
    node->n_ids = 0;
    if (node->s.phase == PH_GAME_OVER) return 0;
    int cap = legal->cap;
    if (legal_actions(&node->s, &spiel_board->b, legal)) return -1;
    if (legal->cap != cap || node->ids == NULL) {
        int *ids = (int *)realloc(node->ids, (size_t)(legal->cap ? legal->cap : 1) * sizeof(int));
        if (ids == NULL) return -1;
        node->ids = ids;
    }
    legal_ids(&node->s, &spiel_space->space, legal, node->ids);
    for (int i = 0; i < legal->n; i++) { /* insertion sort by id: the engine's order is nearly ascending */
        int id = node->ids[i], j = i - 1;
        uint64_t code = legal->v[i];
        if (id < 0) return -1;
        while (j >= 0 && node->ids[j] > id) {
            node->ids[j + 1] = node->ids[j];
            legal->v[j + 1] = legal->v[j];
            j--;
        }
        node->ids[j + 1] = id;
        legal->v[j + 1] = code;
    }
    node->n_ids = legal->n;
    return 0;
}

/* After a run with every draw chosen: the next decision (or the end) is the node's. */
static int spiel_decided(SpielNode *node) {
    node->chance_kind = -1;
    node->n_outcomes = 0;
    node->n_chosen = 0;
    if (spiel_list_legal(node)) return -1;
    node->player = node->n_ids ? node->s.current : SPIEL_TERMINAL;
    return 0;
}

/* Run the deal (no game yet) or the pending action from the node's state with the draws chosen
 * so far: 1 when a draw had no item (the node is that draw's chance node, its state unchanged),
 * 0 when every draw had one (the state is the result), -1 for a chosen item not in its pile. */
static int spiel_run(SpielNode *node, uint64_t code) {
    DrawPlan plan;
    State copy;
    if (node->has_game) {
        memcpy(&copy, &node->s, sizeof(State));
    } else {
        memset(&copy, 0, sizeof(State));
        copy.rng = dealing_rng;
    }
    plan.chosen = node->chosen;
    plan.n_chosen = node->n_chosen;
    plan.used = plan.stopped = plan.bad = 0;
    draw_plan = &plan;
    if (node->has_game)
        apply_action(&copy, &spiel_board->b, code);
    else
        setup(&copy, &spiel_board->b, node->players, node->first);
    draw_plan = NULL;
    if (plan.bad || (!plan.stopped && plan.used < plan.n_chosen)) return -1;
    if (plan.stopped) {
        spiel_chance_of(node, &plan);
        return 1;
    }
    memcpy(&node->s, &copy, sizeof(State));
    node->has_game = 1;
    return 0;
}

/* Apply a chance outcome or the player's legal id: 0, or -1 and no change (SPIEL_ILLEGAL: not a
 * legal action or outcome now; SPIEL_NO_MEMORY) in *error. */
static int spiel_apply(SpielNode *node, long action, int *error) {
    *error = SPIEL_ILLEGAL;
    if (node->player == SPIEL_TERMINAL) return -1;
    if (node->player >= 0) {
        int at = -1;
        for (int i = 0; i < node->n_ids && at < 0; i++)
            if (node->ids[i] == action) at = i;
        if (at < 0) return -1;
        node->pending = (int)action;
        node->n_chosen = 0;
        int stopped = spiel_run(node, node->legal.v[at]);
        if (stopped < 0) return -1; /* not reached: nothing was chosen */
        if (stopped) {
            node->pending_code = node->legal.v[at];
            return 0;
        }
    } else {
        int found = 0;
        for (int i = 0; i < node->n_outcomes && !found; i++) found = node->outcomes[i] == action;
        if (!found || node->n_chosen >= MAX_CHOSEN) return -1;
        if (node->chance_kind == SPIEL_PILE_FIRST) {
            node->first = (int)action;
            node->n_chosen = 0;
        } else {
            node->chosen[node->n_chosen++] = action;
        }
        int stopped = spiel_run(node, node->has_game ? node->pending_code : 0);
        if (stopped < 0) { /* not reached: the outcome is in the pile */
            if (node->chance_kind != SPIEL_PILE_FIRST) node->n_chosen--;
            return -1;
        }
        if (stopped) return 0;
    }
    if (spiel_decided(node)) {
        *error = SPIEL_NO_MEMORY;
        return -1;
    }
    return 0;
}

/* seat's observation vector (rl/observation.py's; zeros before the deal is done) into out
 * (spiel_api.observation_size floats). At a draw's chance node: the game before the pending
 * action, as rl/openspiel_core.py observes it. */
static void spiel_observe(const SpielNode *node, int seat, float *out) {
    if (!node->has_game) {
        memset(out, 0, (size_t)spiel_space->layout.size * sizeof(float));
        return;
    }
    encode_obs(&node->s, &spiel_board->b, &spiel_space->layout, seat, out);
}

/* Each seat's return into out: 0 until the game is over, then the end reward (win: +1 for a
 * winner, -1 for the others; else the total minus the best other total). */
static void spiel_returns(const SpielNode *node, int win, double *out) {
    for (int p = 0; p < node->players; p++) out[p] = 0.0;
    if (node->player != SPIEL_TERMINAL || !node->has_game) return;
    Result r;
    score(&node->s, &spiel_board->b, &r, 0);
    for (int p = 0; p < node->players; p++) out[p] = seat_end_reward(&r, node->players, p, win);
}

/* The position in one line, rl/openspiel.py's str(state): "(the deal)" before it is done, else
 * the turn, the phase, the player to decide, the display, each seat's score and trains left,
 * and the pile being drawn from at a chance node. Written into out (size bytes, cut short if
 * need be); the length it needed. */
static int spiel_string(const SpielNode *node, char *out, size_t size) {
    static const char *phases[] = {"INITIAL_TICKETS", "CHOOSE_ACTION", "SECOND_CARD",
                                   "KEEP_TICKETS",    "TUNNEL_EXTRA",  "GAME_OVER"};
    static const char letters[] = "PWUYOKRGL";
    if (!node->has_game) return snprintf(out, size, "(the deal)");
    const State *s = &node->s;
    char line[512];
    int n = snprintf(line, sizeof line, "turn %d %s to:%d display", s->turn, phases[s->phase],
                     s->phase == PH_GAME_OVER ? -1 : s->current); /* the engine's decision: none at the end */
    for (int i = 0; i < SLOTS; i++) n += snprintf(line + n, sizeof line - (size_t)n, " %c", s->display[i] >= 0 ? letters[s->display[i]] : '-');
    for (int p = 0; p < s->players; p++)
        n += snprintf(line + n, sizeof line - (size_t)n, " p%d:%d/%dt", p, s->scores[p], s->trains[p]);
    if (node->player == SPIEL_CHANCE)
        n += snprintf(line + n, sizeof line - (size_t)n, " drawing:%s", node->chance_kind == SPIEL_PILE_CARD ? "card" : "ticket");
    return snprintf(out, size, "%s", line);
}

static int spiel_player(const SpielNode *node) { return node->player; }

static int spiel_chance(const SpielNode *node, const long **outcomes, const double **probs) {
    *outcomes = node->outcomes;
    *probs = node->probs;
    return node->player == SPIEL_CHANCE ? node->n_outcomes : 0;
}

static int spiel_chance_kind(const SpielNode *node) { return node->player == SPIEL_CHANCE ? node->chance_kind : -1; }

static int spiel_legal(const SpielNode *node, const int **ids) {
    *ids = node->ids;
    return node->player >= 0 ? node->n_ids : 0;
}

static int spiel_players(const SpielNode *node) { return node->players; }

static SpielApi spiel_api = {
    SPIEL_API_VERSION, spiel_setup, spiel_new,     spiel_clone,   spiel_free,        spiel_apply,
    spiel_player,      spiel_players, spiel_chance, spiel_chance_kind, spiel_legal, spiel_observe,
    spiel_returns,     spiel_string,
};
