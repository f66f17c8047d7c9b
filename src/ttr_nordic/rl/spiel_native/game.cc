// OpenSpiel game "ttr_nordic_native": rl/openspiel.py's game (its chance model, action ids,
// observation tensor, returns and state string) written in C++ against OpenSpiel and stepped by
// the compiled core's node (fast/_spiel.h, through the capsule of fast/_spiel_api.h), so that
// OpenSpiel's C++ algorithms and bots play it without a call into Python. Built against the
// headers of the installed OpenSpiel's own source release and linked to its pyspiel module
// (rl/openspiel_native.py builds it); registered in OpenSpiel's game registry by _setup().
#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "open_spiel/spiel_utils.h"

#include "_spiel_api.h"

namespace ttr_nordic_native {
namespace {

using open_spiel::Action;
using open_spiel::ActionsAndProbs;
using open_spiel::Game;
using open_spiel::GameParameter;
using open_spiel::GameParameters;
using open_spiel::GameType;
using open_spiel::Player;
using open_spiel::State;

const SpielApi *api = nullptr;                   // the core's node functions (_setup)
std::vector<std::string> descriptions;          // each action id's description (ActionSpace.describe)
int observation_size = 0, num_ids = 0, max_chance = 0;
constexpr int kMaxGameLength = 6000;             // rl/openspiel.py's MAX_GAME_LENGTH
constexpr char kCardLetters[] = "PWUYOKRGL";

const GameType kGameType{
    /*short_name=*/"ttr_nordic_native",
    /*long_name=*/"Ticket to Ride: Nordic Countries (compiled)",
    GameType::Dynamics::kSequential,
    GameType::ChanceMode::kExplicitStochastic,
    GameType::Information::kImperfectInformation,
    GameType::Utility::kGeneralSum,
    GameType::RewardModel::kTerminal,
    /*max_num_players=*/3,
    /*min_num_players=*/2,
    /*provides_information_state_string=*/false,
    /*provides_information_state_tensor=*/false,
    /*provides_observation_string=*/false,
    /*provides_observation_tensor=*/true,
    /*parameter_specification=*/{{"players", GameParameter(2)}, {"reward", GameParameter(std::string("win"))}},
    /*default_loadable=*/true,
};

struct NodeDeleter {
  void operator()(SpielNode* node) const { api->destroy(node); }
};
using NodePtr = std::unique_ptr<SpielNode, NodeDeleter>;

class NordicState : public State {
 public:
  NordicState(std::shared_ptr<const Game> game, NodePtr node, bool win)
      : State(std::move(game)), node_(std::move(node)), win_(win) {}

  Player CurrentPlayer() const override { return api->player(node_.get()); }

  std::vector<Action> LegalActions() const override {
    if (IsChanceNode()) return LegalChanceOutcomes();
    const int* ids;
    int n = api->legal(node_.get(), &ids);
    return std::vector<Action>(ids, ids + n);
  }

  ActionsAndProbs ChanceOutcomes() const override {
    const long* outcomes;
    const double* probs;
    int n = api->chance(node_.get(), &outcomes, &probs);
    ActionsAndProbs out;
    out.reserve(n);
    for (int i = 0; i < n; i++) out.emplace_back(outcomes[i], probs[i]);
    return out;
  }

  std::string ActionToString(Player player, Action action) const override {
    if (player == open_spiel::kChancePlayerId) {
      switch (api->chance_kind(node_.get())) {
        case SPIEL_PILE_FIRST:
          return absl::StrCat("First:p", action);
        case SPIEL_PILE_CARD:
          if (action >= 0 && action < 9) return absl::StrCat("Card:", std::string(1, kCardLetters[action]));
          return absl::StrCat("Card:", action);
        case SPIEL_PILE_TICKET:
          return absl::StrCat("Ticket:", action);
        default:
          return absl::StrCat("Chance:", action);
      }
    }
    if (action >= 0 && action < num_ids) return descriptions[action];
    return absl::StrCat("action ", action);
  }

  std::string ToString() const override {
    char line[512];
    api->string(node_.get(), line, sizeof line);
    return line;
  }

  bool IsTerminal() const override { return CurrentPlayer() == open_spiel::kTerminalPlayerId; }

  std::vector<double> Returns() const override {
    std::vector<double> out(num_players_);
    api->returns(node_.get(), win_ ? 1 : 0, out.data());
    return out;
  }

  void ObservationTensor(Player player, absl::Span<float> values) const override {
    SPIEL_CHECK_GE(player, 0);
    SPIEL_CHECK_LT(player, num_players_);
    SPIEL_CHECK_EQ(values.size(), observation_size);
    api->observe(node_.get(), player, values.data());
  }

  std::unique_ptr<State> Clone() const override {
    SpielNode* copy = api->clone(node_.get());
    if (copy == nullptr) open_spiel::SpielFatalError("out of memory");
    return std::make_unique<NordicState>(*this, NodePtr(copy));
  }

  NordicState(const NordicState& other, NodePtr node) : State(other), node_(std::move(node)), win_(other.win_) {}

 protected:
  void DoApplyAction(Action action) override {
    int error = 0;
    if (api->apply(node_.get(), static_cast<long>(action), &error) == 0) return;
    if (error == SPIEL_NO_MEMORY) open_spiel::SpielFatalError("out of memory");
    if (CurrentPlayer() == open_spiel::kChancePlayerId)
      open_spiel::SpielFatalError(absl::StrCat(action, " is not a possible outcome of this chance node"));
    open_spiel::SpielFatalError(absl::StrCat("action ", action, " (", ActionToString(CurrentPlayer(), action),
                                             ") is not legal now"));
  }

 private:
  NodePtr node_;
  bool win_;
};

class NordicGame : public Game {
 public:
  explicit NordicGame(const GameParameters& params)
      : Game(kGameType, params),
        players_(ParameterValue<int>("players")),
        win_(ParameterValue<std::string>("reward") == "win") {
    if (players_ != 2 && players_ != 3)
      open_spiel::SpielFatalError(absl::StrCat("Nordic Countries is for 2 or 3 players, not ", players_));
    std::string reward = ParameterValue<std::string>("reward");
    if (reward != "win" && reward != "margin")
      open_spiel::SpielFatalError(absl::StrCat("reward must be 'win' or 'margin', not '", reward, "'"));
  }

  int NumDistinctActions() const override { return num_ids; }
  std::unique_ptr<State> NewInitialState() const override {
    SpielNode* node = api->create(players_);
    if (node == nullptr) open_spiel::SpielFatalError("out of memory");
    return std::make_unique<NordicState>(shared_from_this(), NodePtr(node), win_);
  }
  int MaxChanceOutcomes() const override { return max_chance; }
  int NumPlayers() const override { return players_; }
  double MinUtility() const override { return win_ ? -1.0 : -400.0; }
  double MaxUtility() const override { return win_ ? 1.0 : 400.0; }
  std::vector<int> ObservationTensorShape() const override { return {observation_size}; }
  int MaxGameLength() const override { return kMaxGameLength; }

 private:
  int players_;
  bool win_;
};

std::shared_ptr<const Game> Factory(const GameParameters& params) {
  return std::shared_ptr<const Game>(new NordicGame(params));
}

// _setup(board, space, descriptions, observation_size, max_chance_outcomes): the core's board
// and action space (fast.core_board(), rl.core_game.core_space()), every action id's description
// and the observation's length; registers the game (once).
PyObject* Setup(PyObject*, PyObject* args) {
  PyObject *board, *space, *texts;
  int size, chance;
  if (!PyArg_ParseTuple(args, "OOO!ii", &board, &space, &PyList_Type, &texts, &size, &chance)) return nullptr;
  if (api != nullptr) Py_RETURN_NONE;
  const SpielApi* found = static_cast<const SpielApi*>(PyCapsule_Import(SPIEL_API_CAPSULE, 0));
  if (found == nullptr) return nullptr;
  if (found->version != SPIEL_API_VERSION) {
    PyErr_Format(PyExc_ImportError, "the compiled core's OpenSpiel API is version %d, not %d", found->version,
                 SPIEL_API_VERSION);
    return nullptr;
  }
  if (found->setup(board, space) < 0) return nullptr;
  std::vector<std::string> named;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(texts); i++) {
    const char* text = PyUnicode_AsUTF8(PyList_GET_ITEM(texts, i));
    if (text == nullptr) return nullptr;
    named.emplace_back(text);
  }
  descriptions = std::move(named);
  num_ids = static_cast<int>(descriptions.size());
  observation_size = size;
  max_chance = chance;
  api = found;
  static open_spiel::GameRegisterer registerer(kGameType, Factory);
  Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"_setup", Setup, METH_VARARGS, "register ttr_nordic_native with the core's board and action space"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_spiel_game", "OpenSpiel game ttr_nordic_native, compiled.", -1,
                      methods};

}  // namespace
}  // namespace ttr_nordic_native

PyMODINIT_FUNC PyInit__spiel_game(void) { return PyModule_Create(&ttr_nordic_native::module); }
