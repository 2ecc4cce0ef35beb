"""The assistant's one front end (issue 35): one cleaner, one language guess, one
translator for both readers, and every word of the question with its span."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rdskit.sandbox.assistant.frontend import MAX_QUESTION_CHARS, PHRASES, front
from rdskit.sandbox.assistant.lexicon import TRANSLATIONS
from rdskit.sandbox.assistant.words import BILINGUAL


def test_the_one_phrase_table_keeps_every_phrase_of_both_lexicons_with_one_meaning() -> None:
    for language in {*TRANSLATIONS, *BILINGUAL}:
        cues, vocabulary = TRANSLATIONS.get(language, {}), BILINGUAL.get(language, {})
        clashes = {k for k in cues if k in vocabulary and cues[k] != vocabulary[k]}
        assert clashes == set(), (language, clashes)
        assert dict(PHRASES[language]) == {**cues, **vocabulary}


@given(st.text(max_size=300))
def test_every_token_knows_its_span_in_the_question(question: str) -> None:
    read = front(question)
    for token in read.tokens:
        assert 0 <= token.start < token.end <= min(len(question), MAX_QUESTION_CHARS)
        said = question[token.start : token.end]
        assert said.strip() == said and said  # a word, not a gap


def test_both_readers_get_the_same_english_reading() -> None:
    read = front("Wie viele Beiträge erwähnen den Preis nicht?")
    assert read.language == "de"
    assert read.english == "how many posts not mention price?"
    assert [t.word for t in read.tokens][:3] == ["wie", "viele", "beiträge"]
    assert read.written("beiträge") == "Beiträge"


def test_a_long_question_is_read_in_bounded_length() -> None:
    read = front("how many posts " * 1_000)
    assert len(read.text) <= MAX_QUESTION_CHARS
    assert all(token.end <= MAX_QUESTION_CHARS for token in read.tokens)
