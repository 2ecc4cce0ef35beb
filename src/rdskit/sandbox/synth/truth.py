"""Emulator truth: the voice and latent sentiment the generator wrote each post from.

The corpus (:mod:`.corpus`) writes a post in a *voice* (praise, complaint, question,
comparison, how-to, story, listicle, news; ``pro`` on LinkedIn; ``ad`` for ads) and
fills that voice's templates; the service's labels are then *scored* from the words
(:mod:`.enrichment`), with errors. The voice's mood (:data:`.corpus.LOCAL_MOOD`: praise
and story positive, complaint negative, every other voice neutral; an ad is not an
author's opinion: neutral) is the post's latent sentiment, the truth a class checks a
validation against. It is read back from the text: each post opens with one template of
one voice (the tests check that every generated post matches exactly one).

Sandbox only, and only the emulator's truth: the real service's posts have none.

Example:
    >>> latent_sentiment("I'm so done with oat milk. The price is a joke.")
    'negative'
    >>> voice_of("Has anyone actually tried oat milk? Asking for a friend.")
    'question'
    >>> voice_of("Limited time: save 30% on Oatly with code SAVE30. Shop now: x", "ad")
    'ad'
"""

from __future__ import annotations

import re
from functools import cache

from rdskit.sandbox.synth import corpus
from rdskit.sandbox.synth.social import STANCE

__all__ = ["latent_sentiment", "stance_of", "voice_of"]


def _pattern(template: str) -> str:
    parts = re.split(r"\{[A-Za-z]+\}", template)
    return r".+?".join(re.escape(p) for p in parts)


@cache
def _openings() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    return tuple(
        (re.compile(_pattern(line) + ("$" if voice.startswith("local:") else "")), voice, kind)
        for line, voice, kind in corpus.openings()
    )


def _written(text: str) -> set[tuple[str, str]]:
    return {(voice, kind) for pattern, voice, kind in _openings() if pattern.match(text or "")}


def voice_of(text: str, content_type: str | None = None) -> str | None:
    """The voice the generator wrote ``text`` in (``local:<mood>`` for a non-English
    post, ``ad`` for an ad); None for a text it did not write."""
    if content_type == "ad":
        return "ad"
    voices = {voice for voice, _ in _written(text)}
    return voices.pop() if len(voices) == 1 else None


def stance_of(text: str, content_type: str | None = None) -> str | None:
    """The latent stance of a post on a social topic (:mod:`.social`): ``support``,
    ``oppose`` or ``none`` (a question, the news, both sides weighed; a non-English post);
    None for a product post, an ad (no author's opinion: drop ads first) or a text the
    generator did not write.

    Example:
        >>> stance_of("I'm against the rent cap, it's unfair and badly designed.")
        'oppose'
        >>> stance_of("I'm so done with oat milk. The price is a joke.") is None
        True
    """
    written = _written(text)
    voices = {voice for voice, _ in written}
    if content_type == "ad" or len(voices) != 1 or not any(kind for _, kind in written):
        return None
    return STANCE.get(voices.pop(), "none")


def latent_sentiment(text: str, content_type: str | None = None) -> str | None:
    """The latent sentiment of a generated post (see the module docs); None for a text
    the generator did not write."""
    voice = voice_of(text, content_type)
    if voice is None:
        return None
    if voice.startswith("local:"):
        return voice.removeprefix("local:")
    return corpus.LOCAL_MOOD.get(voice, "neutral")
