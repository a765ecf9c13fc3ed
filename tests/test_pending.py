"""The pending buffer on its own: the cap and its digest, batches, putting back, the wait
mark, its counters."""

from __future__ import annotations

import logging

from monologue import Event
from monologue.digest._fold import covered, event_count
from monologue.events import FOLDED_TYPE
from monologue.pipeline._pending import PendingBuffer


def events(*texts: str) -> list[Event]:
    return [Event(type="text", data={"text": text}) for text in texts]


def texts(buffer: PendingBuffer) -> list[str]:
    return [event.data["text"] for event in buffer]


def test_the_cap_folds_the_oldest_into_the_next_batch_and_warns_once(caplog):
    buffer = PendingBuffer(3, lambda: "session S (coder)")
    appended = events("a", "b", "c", "d", "e")
    with caplog.at_level(logging.WARNING, "monologue.session"):
        for event in appended:
            buffer.append(event)
    assert texts(buffer) == ["c", "d", "e"]
    assert (buffer.folded, buffer.dropped) == (2, 0)
    assert repr(buffer) == "<PendingBuffer 3/3 +2 folded>"
    assert not buffer.only("text"), "the folded events wait too"
    assert [r.getMessage() for r in caplog.records] == [
        "session S (coder): narration buffer reached its cap of 3 events while the narrator "
        "is busy or waiting, or a should_speak plugin holds; the oldest are folded into a "
        "digest (counts by tool, files, commands, errors) that the next narrative covers in "
        "a sentence or two instead of one by one"
    ]
    batch = buffer.take()
    assert batch[0].type == FOLDED_TYPE
    assert batch[0].data["ids"] == [e.id for e in appended[:2]]
    assert batch[1:] == appended[2:]
    assert covered(batch) == ([e.id for e in appended], None)


def test_a_batch_is_taken_whole_and_put_back_in_front_folding_beyond_the_cap():
    buffer = PendingBuffer(4, str)
    first = events("a", "b", "c")
    for event in first:
        buffer.append(event)
    batch = buffer.take()
    assert [e.data["text"] for e in batch] == ["a", "b", "c"]
    assert len(buffer) == 0
    for event in events("d", "e"):
        buffer.append(event)
    buffer.put_back(batch)
    assert texts(buffer) == ["b", "c", "d", "e"]  # the oldest beyond the cap was folded
    assert (buffer.folded, buffer.dropped) == (1, 0)
    again = buffer.take()
    assert again[0].data["ids"] == [first[0].id]
    buffer.put_back(again)  # a *wait*: the digest comes back with its batch
    assert buffer.take()[0].data["ids"] == [first[0].id]


def test_a_digest_put_back_after_the_cap_was_reached_again_stays_in_order():
    buffer = PendingBuffer(2, str)
    appended = events("a", "b", "c", "d", "e", "f", "g")
    for event in appended[:3]:
        buffer.append(event)  # a is folded
    batch = buffer.take()
    for event in appended[3:]:
        buffer.append(event)  # during the turn: d and e are folded, f and g wait
    buffer.put_back(batch)  # the batch (a's digest, b, c) is older than d's digest
    assert texts(buffer) == ["f", "g"]
    digest = buffer.take()[0].data
    assert digest["ids"] == [e.id for e in appended[:5]]
    assert (digest["first_id"], digest["last_id"]) == (appended[0].id, appended[4].id)
    assert buffer.folded == 5


def test_a_failed_batch_counts_its_folded_events_as_dropped():
    buffer = PendingBuffer(2, str)
    for event in events("a", "b", "c", "d"):
        buffer.append(event)
    batch = buffer.take()
    assert event_count(batch) == 4  # the digest stands for the two events it folded
    buffer.drop(batch)
    assert buffer.dropped == 4
    buffer.append(events("e")[0])
    assert buffer.take()[0].type == "text"  # nothing folded is left over


def test_the_wait_mark_holds_until_enough_new_events_or_a_narrative():
    buffer = PendingBuffer(10, str)
    batch = events("a", "b")
    buffer.count_wait()
    buffer.put_back(batch, hold_for=2)
    assert buffer.waits == 1
    assert buffer.below_wait_mark()  # 2 < 2 + 2
    buffer.append(events("c")[0])
    assert buffer.below_wait_mark()
    buffer.append(events("d")[0])
    assert not buffer.below_wait_mark()
    buffer.put_back(buffer.take(), hold_for=5)
    assert buffer.below_wait_mark()
    buffer.clear_wait()
    assert not buffer.below_wait_mark()


def test_the_wait_mark_counts_arrivals_so_a_full_buffer_still_reaches_it():
    buffer = PendingBuffer(3, str)
    for event in events("a", "b", "c", "d"):
        buffer.append(event)
    buffer.put_back(buffer.take(), hold_for=2)
    buffer.append(events("e")[0])
    assert buffer.below_wait_mark()
    buffer.append(events("f")[0])
    assert len(buffer) == 3
    assert not buffer.below_wait_mark()


def test_a_lost_batch_is_counted_and_only_reports_the_kind_it_holds():
    buffer = PendingBuffer(10, str)
    assert buffer.only("completion")  # empty
    buffer.append(Event(type="completion", data={}))
    assert buffer.only("completion")
    buffer.append(events("x")[0])
    assert not buffer.only("completion")
    buffer.drop(buffer.take())
    assert buffer.dropped == 2
    buffer.append(events("y")[0])
    buffer.clear()
    assert len(buffer) == 0
    assert repr(buffer) == "<PendingBuffer 0/10>"
