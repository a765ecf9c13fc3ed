"""An explicit ``min_buffer_size`` is the batch size; with ``buffer_steps`` it is a floor.

1 narrates every event while the narrator keeps up, and what arrives while it is busy makes
the next batch; 5 narrates batches of five. Set together with ``buffer_steps``, the minimum
only holds, and the natural-boundary rule decides.
"""

from __future__ import annotations

from conftest import Start


def test_min_1_narrates_every_event_while_the_narrator_is_free(start: Start) -> None:
    agent = start(min_buffer_size=1)
    use_id = agent.call("Bash", command="pytest -q")  # a call alone: not a boundary
    agent.result(use_id, "3 passed")
    agent.text("All green.")
    agent.call("Read", file_path="a.py")
    agent.call("Read", file_path="b.py")
    assert agent.asked == 5
    assert [call.types for call in agent.narrator.calls] == [
        ["tool_call"],
        ["tool_result"],
        ["text"],
        ["tool_call"],
        ["tool_call"],
    ]


def test_min_1_batches_what_arrives_while_the_narrator_is_busy(start: Start) -> None:
    agent = start(min_buffer_size=1)
    agent.narrator.latency = 0.5
    session = agent.session
    session.emit("text", {"text": "first"})
    assert agent.narrator.wait_for_calls(1)
    for text in ("second", "third", "fourth"):
        session.emit("text", {"text": text})
    assert session.wait_idle(5)
    assert [len(call.events) for call in agent.narrator.calls] == [1, 3]


def test_min_5_narrates_batches_of_five(start: Start) -> None:
    agent = start(min_buffer_size=5, max_buffer_size=10)
    for n in range(8):
        agent.step("Read")  # a call and its result: two events
        assert agent.asked == (2 * n + 2) // 5
    assert [len(call.events) for call in agent.narrator.calls] == [5, 5, 5]


def test_an_explicit_min_with_buffer_steps_keeps_the_boundary_rule(start: Start) -> None:
    agent = start(min_buffer_size=1, buffer_steps=2)
    agent.step()  # the introduction: one event was enough
    assert agent.asked == 1
    agent.call("Bash", command="make")
    agent.call("Bash", command="make test")
    assert agent.asked == 1, "calls are no boundary and no finished step"
    agent.text("Both started.")
    agent.text("Waiting for them.")
    assert agent.asked == 2


def test_the_throttle_holds_an_explicit_min_too(start: Start) -> None:
    agent = start(min_buffer_size=1, throttle_ms=10_000)
    agent.text(at=0)
    agent.text(at=3)
    agent.text(at=6)
    assert agent.asked == 1
    agent.text(at=11)
    assert agent.asked == 2
    assert len(agent.narrator.calls[1].events) == 3


def test_without_an_explicit_min_the_default_waits_for_finished_steps(start: Start) -> None:
    agent = start()  # min_buffer_size 2 by default, buffer_steps 3
    agent.step()
    assert agent.asked == 1
    for _ in range(2):
        agent.step()
    assert agent.asked == 1
    agent.step()
    assert agent.asked == 2
