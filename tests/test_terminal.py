"""The terminal game, driven through injected input and output (no real terminal needed)."""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from ttr_nordic.ai import RandomAgent, play_game
from ttr_nordic.ai.registry import agent_names, make_agent
from ttr_nordic.cli import run
from ttr_nordic.engine import (
    Claim,
    DeclineTunnel,
    DrawBlind,
    GameRecord,
    GameResult,
    GameState,
    KeepTickets,
    Phase,
    PlayerResult,
    TicketResult,
)
from ttr_nordic.terminal.app import build_seats, default_save_path
from ttr_nordic.terminal.console import QuitGame, TerminalIO
from ttr_nordic.terminal.play import GameSession, Seat
from ttr_nordic.terminal.render import Renderer

CARD_COUNT = re.compile(r"\b\d+ (purple|white|blue|yellow|orange|black|red|green|locomotive)\b")
RANGE = re.compile(r"\[1-(\d+)")


class Script:
    """Answers prompts: first the given answers, then ``strategy(prompt)``, then end of input.

    The prompt and the answer are written into the same transcript as the game's output,
    as a terminal would show them. An answer may be an exception to raise (e.g. Ctrl-C).
    """

    def __init__(
        self,
        answers: Iterable[str | BaseException] = (),
        strategy: Callable[[str], str] | None = None,
        limit: int = 20_000,
    ) -> None:
        self.answers = list(answers)
        self.strategy = strategy
        self.limit = limit
        self.calls = 0
        self.out = io.StringIO()
        self.err = io.StringIO()
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        self.prompts.append(prompt)
        self.out.write(prompt)
        if self.calls > self.limit:
            raise EOFError
        if self.answers:
            answer = self.answers.pop(0)
        elif self.strategy is not None:
            answer = self.strategy(prompt)
        else:
            raise EOFError
        if isinstance(answer, BaseException):
            raise answer
        self.out.write(answer + "\n")
        return answer

    def io(self, color: bool = False) -> TerminalIO:
        return TerminalIO(input_fn=self, out=self.out, err=self.err, color=color)

    @property
    def text(self) -> str:
        return self.out.getvalue()


def random_answers(seed: int) -> Callable[[str], str]:
    """A random valid number for numbered prompts, Enter for the others."""
    rng = random.Random(seed)

    def answer(prompt: str) -> str:
        if " keep (ticket numbers" in prompt:
            return "all"
        match = RANGE.search(prompt)
        return str(rng.randint(1, int(match.group(1)))) if match else ""

    return answer


def human_vs_bot(seed: int = 5, first_player: int = 0) -> tuple[GameState, GameSession, Script]:
    state = GameState.new(players=2, seed=seed, first_player=first_player)
    script = Script()
    seats = [Seat("Ann"), Seat("Bot", RandomAgent(seed), "random")]
    return state, GameSession(state, seats, script.io()), script


def advance_to(state: GameState, wanted: Callable[[GameState], bool], seed: int = 0) -> bool:
    """Play random legal moves until ``wanted(state)``; False if the game ended first."""
    rng = random.Random(seed)
    while not state.is_over:
        if wanted(state):
            return True
        legal = state.legal_action_list()
        state.apply(legal[rng.randrange(len(legal))])
    return False


def at_choose_action(state: GameState) -> bool:
    return state.decision.player == 0 and state.decision.phase is Phase.CHOOSE_ACTION


# ---------------------------------------------------------------- whole games


@pytest.mark.parametrize(
    ("seed", "extra"),
    [(11, []), (12, ["--players", "3", "--humans", "2", "--names", "Ann,Ben,Cy"])],
)
def test_complete_game_to_the_scoring_screen(tmp_path: Path, seed: int, extra: list[str]) -> None:
    save = tmp_path / "game.json"
    script = Script(strategy=random_answers(seed))
    code = run(["play", "--seed", str(seed), "--no-color", "--save", str(save), *extra], script.io())
    text = script.text
    assert code == 0, script.err.getvalue()
    assert "=== Final scoring ===" in text
    assert "Globetrotter bonus" in text and "Total" in text and "longest path" in text
    assert re.search(r"Winner: .+ with -?\d+ points\.|share the victory|wins with the", text)
    assert f"Game record saved to {save}" in text
    assert "\033[" not in text  # --no-color, and not a TTY anyway
    record = GameRecord.load(save)
    assert record.replay().is_over
    assert record.meta["finished"] is True
    assert len(record.meta["names"]) == record.config.players
    if extra:
        assert record.meta["names"] == ["Ann", "Ben", "Cy"]
        assert record.meta["agents"] == ["human", "human", "medium"]
    else:
        assert record.meta["agents"] == ["human", "medium"]


def test_ai_moves_are_reported_from_the_public_log() -> None:
    state, session, script = human_vs_bot(seed=5, first_player=1)
    session.step()  # the bot keeps its initial tickets
    assert " * Bot kept " in script.text
    # the bot's ticket names are private: only the count is shown
    kept = state.tickets[1]
    assert all(state.board.tickets[t].name not in script.text for t in kept)


# ------------------------------------------------------------------ bad input


def test_bad_input_never_crashes_and_leaves_the_state_unchanged() -> None:
    state, session, script = human_vs_bot()
    assert advance_to(state, at_choose_action, seed=1)
    before_history = list(state.history)
    before_view = state.view(0)
    script.answers = ["abc", "99", "", "0", "-3", "2.5", "F9", "h", "r", "r oslo", "s", "c", "0", "x y z"]
    with pytest.raises(QuitGame) as stop:
        session.human_decision(0)
    assert stop.value.how == "eof"
    assert state.history == before_history
    assert state.view(0) == before_view
    text = script.text
    assert "99 is not a choice" in text
    assert "Please type a number" in text
    assert "-3 is not a choice" in text
    assert "Not understood" in text and "face-up slots are F1 to F5" in text
    assert "Expert notation" in text  # h
    assert "Free routes" in text  # r


def test_illegal_notation_prints_the_engines_reason() -> None:
    state, session, script = human_vs_bot()
    assert advance_to(state, at_choose_action, seed=1)
    before = list(state.history)
    script.answers = ["K 1 2", "C R99 OOO", "C R01 PPPPPPP", "X L"]
    with pytest.raises(QuitGame):
        session.human_decision(0)
    assert state.history == before
    text = script.text
    assert "Not allowed: no tickets are on offer" in text
    assert "Not understood: route codes run from R01 to R" in text  # the parser refuses it now
    assert "Not allowed: you do not hold 7 purple" in text
    assert "Not allowed: no tunnel claim is being resolved" in text
    # then a legal expert move goes through the engine
    script.answers = ["B"]
    session.human_decision(0)
    assert state.history[-1] == DrawBlind()
    assert state.decision == (0, Phase.SECOND_CARD)


def test_end_of_input_quit_and_ctrl_c_save_the_game(tmp_path: Path) -> None:
    cases: list[tuple[list[str | BaseException], int, str]] = [
        ([], 0, "End of input"),
        (["q"], 0, "Saving the game"),
        ([KeyboardInterrupt()], 130, "Interrupted"),
    ]
    for answers, expected_code, message in cases:
        save = tmp_path / f"g{expected_code}{len(answers)}.json"
        script = Script(answers)
        code = run(["play", "--seed", "4", "--save", str(save)], script.io())
        assert code == expected_code
        assert message in script.text
        record = GameRecord.load(save)
        assert record.meta["finished"] is False
        assert not record.replay().is_over


def test_default_save_file_is_named_after_the_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Records go to the data folder (beside the server's database), not the current folder.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    games = tmp_path / "data" / "ttr-nordic" / "games"
    for expected in ("ttr-nordic-7.json", "ttr-nordic-7-2.json"):
        script = Script()
        assert run(["play", "--seed", "7"], script.io()) == 0
        assert (games / expected).exists()
        assert f"saved to {games / expected}" in script.text
    assert default_save_path(7, games).name == "ttr-nordic-7-3.json"
    assert list(tmp_path.glob("*.json")) == []


def test_save_to_a_missing_folder_is_refused_before_the_game(tmp_path: Path) -> None:
    script = Script(strategy=random_answers(1))
    missing = tmp_path / "no-such-folder" / "game.json"
    assert run(["play", "--seed", "3", "--save", str(missing)], script.io()) == 2
    assert script.err.getvalue().strip() == (
        f"ttr-nordic play: error: cannot save to {missing}: folder {missing.parent} does not exist"
    )
    assert script.calls == 0 and not missing.parent.exists()


def test_a_game_saved_with_q_resumes_where_it_stopped(tmp_path: Path) -> None:
    save = tmp_path / "hotseat.json"
    first = Script(strategy=random_answers(4), limit=40)  # then end of input saves it
    argv = ["play", "--seed", "8", "--players", "3", "--humans", "2", "--names", "Ann,Ben", "--ai", "random"]
    assert run([*argv, "--no-color", "--save", str(save)], first.io()) == 0
    stopped = GameRecord.load(save)
    assert not stopped.meta["finished"] and len(stopped.actions) > 3
    assert f"Go on with it with: ttr-nordic play --resume {save}" in first.text

    second = Script(strategy=random_answers(5), limit=20_000)
    assert run(["play", "--resume", str(save), "--no-color"], second.io()) == 0
    assert f"Resuming after {len(stopped.actions)} moves" in second.text
    assert "Game over" in second.text
    finished = GameRecord.load(save)  # saved back to the same file
    assert finished.meta["finished"] is True
    assert finished.actions[: len(stopped.actions)] == stopped.actions
    assert finished.meta["names"] == stopped.meta["names"] and finished.meta["agents"] == ["human", "human", "random"]
    assert finished.config == stopped.config and finished.replay().is_over


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{}", "not a game record"),
        ("finished", "is over; step through it with: ttr-nordic replay"),
    ],
)
def test_resume_refuses_what_it_cannot_go_on_with(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "game.json"
    if content == "finished":
        state = play_game([RandomAgent(1), RandomAgent(2)], seed=3)
        GameRecord(state.config, state.record().actions, {"names": ["A", "B"], "agents": ["human", "random"]}).save(
            path
        )
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    script = Script()
    assert run(["play", "--resume", str(path)], script.io()) == 2
    error = script.err.getvalue()
    assert error.startswith("ttr-nordic play: error:") and message in error and error.count("\n") == 1
    assert script.calls == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "2", "--humans", "3"],
        ["--players", "2", "--names", "A,B,C"],
        ["--ai", "genius"],
        ["--names", "A,A"],
        ["--humans", "-1"],
    ],
)
def test_bad_play_options_exit_2_with_a_message(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    script = Script()
    assert run(["play", "--seed", "1", *argv], script.io()) == 2
    assert "ttr-nordic play: error:" in script.err.getvalue()
    assert script.calls == 0


# ------------------------------------------------------------------- menus


def test_keep_tickets_by_their_numbers_only() -> None:
    # A number always means a ticket of the list, never a menu choice ("3" was choice 3).
    state, session, script = human_vs_bot(first_player=0)
    offer = list(state.offers[0])
    script.answers = ["keep 2", "1 3"]  # keeping one initial ticket is refused
    session.human_decision(0)
    assert "Keep at least 2 of the 5 tickets." in script.text
    assert state.tickets[0] == sorted([offer[0], offer[2]])
    assert "  1) " in script.text and f"{state.board.tickets[offer[0]].points:>3} pts" in script.text
    assert "keep (ticket numbers 1-5, at least 2)>" in script.text

    state2, session2, script2 = human_vs_bot(first_player=0)
    offer2 = list(state2.offers[0])
    script2.answers = ["3", "2, 4"]  # "3" is ticket 3 alone: too few at setup
    session2.human_decision(0)
    assert "Keep at least 2" in script2.text
    assert state2.tickets[0] == sorted([offer2[1], offer2[3]])


def _menu_number(text: str, pattern: str) -> str:
    """The number of the last route-menu line matching ``pattern``."""
    menu = text[text.rindex("Claim which route?") :]
    found = re.findall(rf"^\s+(\d+)\) [^\n]*{pattern}", menu, flags=re.MULTILINE)
    assert found, menu
    return found[0]


def test_claim_through_the_two_level_menu_with_a_way_back() -> None:
    def several_ways(state: GameState) -> bool:
        if not at_choose_action(state):
            return False
        by_route: dict[int, int] = {}
        for action in state.legal_action_list():
            if isinstance(action, Claim):
                by_route[action.route] = by_route.get(action.route, 0) + 1
        return any(n > 1 for n in by_route.values())

    state, session, script = human_vs_bot(seed=8)
    assert advance_to(state, several_ways, seed=2)
    legal = state.legal_action_list()
    claim_entry = sum(1 for a in legal if not isinstance(a, Claim)) + 1
    visits = {"route": 0, "payment": 0}

    def answer(prompt: str) -> str:
        if prompt.startswith("Route ["):
            visits["route"] += 1
            return "0" if visits["route"] == 1 else _menu_number(script.text, "ways to pay")
        if prompt.startswith("Payment ["):
            visits["payment"] += 1
            return "0" if visits["payment"] == 1 else "1"
        return str(claim_entry)

    script.answers = ["c"]
    script.strategy = answer
    before = len(state.history)
    session.human_decision(0)
    assert len(state.history) == before + 1
    claim = state.history[-1]
    assert isinstance(claim, Claim) and claim in legal
    text = script.text
    assert text.count("Claim which route?") == 3  # back from the list, a visit, back from payment, again
    assert "pay with (0 = back)" in text
    assert re.search(r"\d+\) \d+ \w+( \+ \d+ \w+)*\n", text)  # "2 orange + 1 locomotive"


def test_a_route_with_one_payment_is_claimed_without_a_payment_menu() -> None:
    def one_way(state: GameState) -> bool:
        if not at_choose_action(state):
            return False
        counts: dict[int, int] = {}
        for action in state.legal_action_list():
            if isinstance(action, Claim):
                counts[action.route] = counts.get(action.route, 0) + 1
        return 1 in counts.values()

    state, session, script = human_vs_bot(seed=8)
    assert advance_to(state, one_way, seed=3)

    def answer(prompt: str) -> str:
        assert not prompt.startswith("Payment ["), "a single payment asked for confirmation"
        return _menu_number(script.text, r"· pay ")

    script.answers = ["c"]
    script.strategy = answer
    before = len(state.history)
    session.human_decision(0)
    assert len(state.history) == before + 1 and isinstance(state.history[-1], Claim)
    assert "pay with (0 = back)" not in script.text


def test_the_round_counter_counts_each_players_turns_one_by_one() -> None:
    state, session, script = human_vs_bot(first_player=0)
    script.strategy = random_answers(5)
    for _ in range(3):  # the human's first three decisions that start a turn
        while state.decision.player != 0 or state.decision.phase is not Phase.CHOOSE_ACTION:
            legal = state.legal_action_list()
            if state.decision.player == 0:
                session.human_decision(0)
            else:
                state.apply(legal[0])
        session.human_decision(0)
    rounds = [int(n) for n in re.findall(r"=== Round (\d+) · Ann: choose an action", script.text)]
    assert rounds[:3] == [1, 2, 3]


def test_tunnel_shows_the_revealed_cards_and_can_be_declined() -> None:
    def at_tunnel(state: GameState) -> bool:
        return state.decision == (0, Phase.TUNNEL_EXTRA)

    for seed in range(60):
        state, session, script = human_vs_bot(seed=seed)
        if advance_to(state, at_tunnel, seed=seed):
            break
    else:
        pytest.fail("no tunnel decision found")
    tunnel = state.tunnel
    assert tunnel is not None
    hand_before = list(state.hands[0])
    script.answers = ["decline"]
    session.human_decision(0)
    assert state.history[-1] == DeclineTunnel()
    text = script.text
    assert "Revealed from the deck:" in text
    assert "To complete the claim: pay" in text
    assert "Decline: take back" in text
    assert state.hands[0] == [h + b for h, b in zip(hand_before, tunnel.base, strict=True)]


def test_route_list_filters_by_region_and_marks_claimable_routes() -> None:
    state, session, _ = human_vs_bot()
    assert advance_to(state, at_choose_action, seed=1)
    legal = state.legal_action_list()
    lines = session.route_list(state.view(0), legal, ["FI-EE".replace("-", "–")])
    assert lines[0].startswith("Free routes matching")
    assert any("Helsinki–Tallinn" in line for line in lines)
    assert not any("Oslo" in line for line in lines)
    everything = session.route_list(state.view(0), legal, [])
    claimable = {state.board.routes[a.route].code for a in legal if isinstance(a, Claim)}
    for line in everything:
        if line.startswith("  * "):
            assert line.split()[1] in claimable


# ---------------------------------------------------------------- hot-seat


def test_hot_seat_hides_the_other_hand() -> None:
    state = GameState.new(players=2, seed=21)
    seats = [Seat("Ann"), Seat("Ben")]
    checks: list[tuple[int, int, str, str]] = []  # (output position, player, own hand line, other hand line)
    renderer = Renderer(TerminalIO(out=io.StringIO()), state.board, ["Ann", "Ben"])
    strategy = random_answers(3)

    def answer(prompt: str) -> str:
        if "press Enter" in prompt:
            p = state.decision.player
            own = renderer.hand_line(state.view(p))
            other = renderer.hand_line(state.view(1 - p))
            checks.append((len(script.text), p, own, other))
            return ""
        return strategy(prompt)

    script = Script(strategy=answer, limit=400)
    session = GameSession(state, seats, script.io())
    assert session.run() == 0  # stops at the limit: end of input
    text = script.text
    assert len(checks) > 10
    previous_end = 0
    for index, (position, player, own, other) in enumerate(checks):
        # Between the last clear and Enter: only the pass screen, nothing private.
        screen = text[text.rfind("~~~~", previous_end, position) : position]
        assert f"Pass the terminal to {seats[player].name}" in screen
        assert "hand" not in screen.lower() and "ticket" not in screen.lower()
        assert not CARD_COUNT.search(screen)
        # After Enter: this player's own hand, never the other's.
        end = checks[index + 1][0] if index + 1 < len(checks) else len(text)
        turn = text[position:end]
        if "Your hand" in turn:
            assert turn.count(own) >= 1
            if other != own:
                assert other not in turn
        previous_end = position


def test_pass_screen_clears_the_scrollback_too(tmp_path: Path) -> None:
    # On a real terminal "clear" alone leaves the previous player's hand one scroll away.
    script = Script(strategy=random_answers(6), limit=120)
    term = TerminalIO(input_fn=script, out=script.out, err=script.err, clear=True)
    argv = ["play", "--seed", "5", "--humans", "2", "--no-color", "--save", str(tmp_path / "g.json")]
    assert run(argv, term) == 0
    text = script.text
    screens = [m.start() for m in re.finditer("Pass the terminal to", text)]
    assert len(screens) > 3
    for position in screens:
        before = text[:position]
        clear = before.rfind("\033[2J")
        assert clear >= 0 and "\033[3J" in text[clear : clear + 12], "scrollback not cleared before the pass screen"
        assert "Your hand" not in text[clear:position]
    assert "~~~~" not in text  # a terminal clears; it does not print separators


def test_no_pass_screen_for_a_single_human(tmp_path: Path) -> None:
    script = Script(strategy=random_answers(1), limit=60)
    run(["play", "--seed", "2", "--no-color", "--save", str(tmp_path / "g.json")], script.io())
    assert "Pass the terminal" not in script.text


# ------------------------------------------------------------------ replay


@pytest.fixture
def finished_record(tmp_path: Path) -> tuple[Path, GameState]:
    state = play_game([RandomAgent(1), RandomAgent(2)], seed=3)
    record = state.record()
    record = GameRecord(record.config, record.actions, {"names": ["Ann", "Bot"], "agents": ["human", "random"]})
    path = tmp_path / "finished.json"
    record.save(path)
    return path, state


def test_replay_steps_forward_back_and_jumps(finished_record: tuple[Path, GameState]) -> None:
    path, state = finished_record
    total = len(state.history)
    script = Script(["", "", "b", "10", "", "xyz", str(total + 5), "e", "", "q"])
    assert run(["replay", str(path), "--no-color"], script.io()) == 0
    headers = re.findall(r"^(Setup|Move \d+/\d+)", script.text, flags=re.MULTILINE)
    steps = [1, 2, 1, 10, 11, total]
    assert headers == ["Setup"] + [f"Move {n}/{total}" for n in steps]
    text = script.text
    assert "Unknown command 'xyz'" in text
    assert f"There are only {total} moves" in text
    assert "End of the record" in text
    assert "=== Final scoring ===" in text
    # a finished game is reviewed open: both hands, with the names from the record
    assert "-- Ann --" in text and "-- Bot --" in text
    first_move = state.view(0).log[0].text.replace("Player 1", "Ann", 1)
    assert f"Move 1/{total}: {first_move}" in text


def test_replay_draws_win_chances_and_lists_key_moments(finished_record: tuple[Path, GameState]) -> None:
    path, state = finished_record
    total = len(state.history)
    script = Script(["k", "10", "q"])
    assert run(["replay", str(path), "--no-color"], script.io()) == 0
    text = script.text
    # A sparkline per player over the whole game, a caret at the move shown, and the chances there.
    assert "Win chances after move 0:" in text and "Win chances after move 10:" in text
    ann = re.findall(r"^  Ann\s+([▁▂▃▄▅▆▇█]+)\s+(\d+)%$", text, flags=re.MULTILINE)
    bot = re.findall(r"^  Bot\s+([▁▂▃▄▅▆▇█]+)\s+(\d+)%$", text, flags=re.MULTILINE)
    assert len(ann) == len(bot) == 2
    assert ann[0][1] == bot[0][1] == "50"  # nothing known before the first move
    assert len(ann[0][0]) == min(60, total + 1)
    assert all(int(a[1]) + int(b[1]) in (99, 100, 101) for a, b in zip(ann, bot, strict=True))
    # "k": the key moments, largest swing first, each with its move.
    moments = re.findall(r"^  move\s+(\d+): (Ann|Bot) ([+-])(\d+)% \((\d+)% -> (\d+)%\): (.+)$", text, re.MULTILINE)
    assert 1 <= len(moments) <= 5
    swings = [int(m[3]) for m in moments]
    assert swings == sorted(swings, reverse=True)
    assert all(0 < int(m[0]) < total for m in moments)
    # --auto ends with the chart and the key moments; a replay shown as one player saw it has neither.
    auto = Script()
    assert run(["replay", str(path), "--auto", "--no-color"], auto.io()) == 0
    assert f"Win chances after move {total}:" in auto.text and "Key moments" in auto.text
    seen = Script()
    assert run(["replay", str(path), "--auto", "--player", "1", "--no-color"], seen.io()) == 0
    assert "Win chances" not in seen.text and "Key moments" not in seen.text


def test_replay_auto_and_player_view_of_an_unfinished_game(tmp_path: Path) -> None:
    save = tmp_path / "unfinished.json"
    script = Script(strategy=random_answers(4), limit=30)
    run(["play", "--seed", "9", "--humans", "2", "--names", "Ann,Ben", "--save", str(save)], script.io())
    record = GameRecord.load(save)
    assert not record.meta["finished"]
    replay = Script()
    assert run(["replay", str(save), "--auto", "--player", "2"], replay.io()) == 0
    text = replay.text
    assert "Shown as Ben saw it." in text
    assert "Ben's hand" in text and "Ann's hand" not in text
    assert re.search(r"^\s+1\. ", text, flags=re.MULTILINE)
    assert replay.calls == 0  # --auto never waits
    default = Script(["q"])
    assert run(["replay", str(save)], default.io()) == 0
    assert "Shown as Ann saw it." in default.text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something-else"}', "not a game record"),
        ('{"format": "ttr-nordic-record", "version": 1, "players": 2}', "needs 'seed'"),
        ('{"format": "ttr-nordic-record", "version": 1, "players": 5, "seed": 1, "actions": []}', "2 or 3"),
        ('{"format": "ttr-nordic-record", "version": 1, "players": 2, "seed": 1, "actions": ["F9"]}', "action 1"),
        ('{"format": "ttr-nordic-record", "version": 1, "players": 2, "seed": 1, "actions": ["B"]}', "does not"),
        ("[1, 2, 3]", "JSON object"),
        (b"\xff\xfe\x00binary", "cannot read"),
        (None, "cannot read"),
    ],
)
def test_broken_replay_files_exit_2_with_a_message(tmp_path: Path, content: str | bytes | None, message: str) -> None:
    path = tmp_path / "broken.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    script = Script()
    assert run(["replay", str(path)], script.io()) == 2
    err = script.err.getvalue()
    assert "ttr-nordic replay: cannot replay" in err and message in err
    assert "Traceback" not in err + script.text


def test_replay_player_out_of_range(finished_record: tuple[Path, GameState]) -> None:
    path, _ = finished_record
    script = Script()
    assert run(["replay", str(path), "--player", "3"], script.io()) == 2
    assert "--player must be between 1 and 2" in script.err.getvalue()


# ------------------------------------------------------- pieces and the CLI


def test_agent_registry() -> None:
    assert "random" in agent_names()
    assert isinstance(make_agent("random", 3), RandomAgent)
    with pytest.raises(ValueError, match="grandmaster"):
        build_seats(2, 1, None, "grandmaster")
    with pytest.raises(ValueError, match="2 AIs for 1 AI seat"):
        build_seats(2, 1, None, "random,random")
    seats = build_seats(3, 1, "Ann", "random", seed=5)
    assert [s.name for s in seats] == ["Ann", "Random AI 1", "Random AI 2"]
    assert [s.is_human for s in seats] == [True, False, False]


def test_winner_texts_explain_the_tie_break() -> None:
    renderer = Renderer(TerminalIO(out=io.StringIO()), GameState.new(seed=1).board, ["Ann", "Ben"])

    def player(p: int, total: int, done: int, path: int) -> PlayerResult:
        tickets = tuple(TicketResult(i, f"T{i}", 0, True) for i in range(done))
        return PlayerResult(p, total, tickets, 0, path, total)

    by_score = GameResult((player(0, 50, 1, 5), player(1, 40, 1, 5)), (0,), "score")
    assert renderer.winner_text(by_score) == "Winner: Ann with 50 points."
    by_tickets = GameResult((player(0, 50, 2, 5), player(1, 50, 3, 5)), (1,), "tickets")
    assert "Ann and Ben tied on 50 points; Ben wins with the most completed tickets (3)" in renderer.winner_text(
        by_tickets
    )
    by_path = GameResult((player(0, 50, 2, 9), player(1, 50, 2, 5)), (0,), "longest path")
    assert "Ann wins with the longest path (9 trains)" in renderer.winner_text(by_path)
    shared = GameResult((player(0, 50, 2, 9), player(1, 50, 2, 9)), (0, 1), "shared")
    assert renderer.winner_text(shared).startswith("Ann and Ben share the victory")


def test_colors_only_when_asked() -> None:
    state, _, _ = human_vs_bot()
    colored = Script()
    session = GameSession(state, [Seat("Ann"), Seat("Bot", RandomAgent(1), "random")], colored.io(color=True))
    session.intro()
    colored.io(color=True).lines(session.render.status(state.view(0)))
    assert "\033[" in colored.text
    plain = Renderer(TerminalIO(out=io.StringIO()), state.board, ["Ann", "Bot"])
    assert "\033[" not in "\n".join(plain.status(state.view(0)))
    assert TerminalIO.for_terminal().color is False  # pytest's stdout is not a TTY


def test_console_command_runs(tmp_path: Path) -> None:
    exe = shutil.which("ttr-nordic", path=str(Path(sys.executable).parent))
    command = [exe] if exe else [sys.executable, "-m", "ttr_nordic.cli"]
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "play" in done.stdout and "replay" in done.stdout
    # a real pipe: two answers, then end of input saves the game
    save = tmp_path / "piped.json"
    done = subprocess.run(
        [*command, "play", "--seed", "3", "--save", str(save)],
        input="all\n1\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "End of input" in done.stdout and "\033[" not in done.stdout
    assert json.loads(save.read_text(encoding="utf-8"))["actions"][:1] != []
    bad = subprocess.run(
        [*command, "replay", str(tmp_path / "missing.json")], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "cannot replay" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize(("command", "expected"), [("play", "--humans"), ("replay", "--auto")])
def test_subcommand_help(command: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        run([command, "--help"], Script().io())
    assert done.value.code == 0
    assert expected in capsys.readouterr().out


def test_keep_tickets_action_goes_through_the_engine() -> None:
    state, session, script = human_vs_bot(first_player=0)
    offer = tuple(state.offers[0])
    script.answers = [f"K {offer[0]} {offer[1]}"]
    session.human_decision(0)
    assert state.history[-1] == KeepTickets(tuple(sorted(offer[:2])))


@pytest.mark.parametrize("levels", ["easy,medium", "hard,expert"])
def test_every_level_plays_a_whole_game(tmp_path: Path, levels: str) -> None:
    save = tmp_path / "levels.json"
    script = Script(strategy=random_answers(1))
    code = run(
        ["play", "--humans", "0", "--ai", levels, "--seed", "21", "--no-color", "--save", str(save)], script.io()
    )
    assert code == 0, script.err.getvalue()
    assert "=== Final scoring ===" in script.text
    record = GameRecord.load(save)
    assert record.meta["agents"] == levels.split(",")
    assert record.replay().is_over


def test_the_terminal_package_does_not_import_the_command_line() -> None:
    # The command line (ttr_nordic.cli) builds on the terminal game, never the other way round.
    import ast

    package = Path(__file__).resolve().parents[1] / "src" / "ttr_nordic" / "terminal"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = "." * node.level + (node.module or "")
                assert target not in ("..cli", "ttr_nordic.cli"), f"{path.name} imports {target}"
