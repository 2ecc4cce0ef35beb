"""How the sandbox assistant reads a question: its intent and how it narrows the posts.

:func:`parse` turns a question into a :class:`Question`: the kind of answer wanted (first
matching rule of :data:`RULES` wins), the topic terms, the sources it names, a sentiment
it narrows to ("top negative posts"), the metric, time unit and window, a result count,
and two follow-up cues (it continues the previous question; it refers back to "these
posts"). :func:`follow` fills what a follow-up leaves out from the previous question.

Topic terms are the question's words minus stop words, the vocabulary of the rules, source
names and the given names (dataset names and search words, which every post shares); a
trailing plural ``s`` is dropped from terms longer than three letters.

Example:
    >>> q = parse("What do people complain about on TikTok regarding the price?")
    >>> q.intent, q.terms, q.sources
    ('complaints', ('price',), ('tiktok',))
    >>> follow(parse("and on reddit only?"), q).intent, follow(parse("and on reddit?"), q).sources
    ('complaints', ('reddit',))
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

__all__ = ["INTENTS", "RULES", "Question", "follow", "parse"]

RULES: tuple[tuple[str, str], ...] = (
    ("patterns", r"\bpatterns?\b|\bclusters?\b|\brecurring\b"),
    ("audience", r"\baudiences?\b|\bprofiles?\b|\bfollowers\b|\bdemographics?\b"),
    ("parameters", r"\bcustom param|\bparameters?\b|\bextract"),
    ("previews", r"\bresearch previews?\b|\bpreviews?\b"),
    (
        "compare",
        r"\bcompar|\bversus\b|\bvs\b\.?|\bdiffer|\bwhich (?:source|platform|network|dataset)s?\b"
        r"|\b(?:by|per|each|across|between) (?:source|platform|network|dataset)s?\b",
    ),
    (
        "trend",
        r"\bover time\b|\bchang(?:e|ed|es|ing)\b|\btrend|\bevolv|\btimeline\b|\bweek(?:ly|s)?\b"
        r"|\bmonth(?:ly|s)?\b|\bdaily\b|\b(?:per|by|each) day\b|\bgr[eo]w|\bspike|\bincreas"
        r"|\bdecreas|\bdeclin|\bris(?:e|en|ing)\b|\bdrop|\bhistory\b|\bwhen\b|\bseason",
    ),
    (
        "questions",
        r"\bquestions?\b|\bask(?:s|ing|ed)?\b|\bwonder(?:s|ing)?\b|\bcurious about\b",
    ),
    (
        "hooks",
        r"\bhooks?\b|\bopening lines?\b|\bopeners?\b"
        r"|\bhow (?:do|does) (?:the )?(?:posts|videos|they|creators) (?:start|open)\b",
    ),
    ("ctas", r"\bctas?\b|\bcalls?[- ]to[- ]action\b"),
    (
        "authors",
        r"\bauthors?\b|\bcreators?\b|\binfluencers?\b|\bwho\b(?! (?:use|uses|used|care|cares))"
        r"|\baccounts?\b|\bvoices\b|\bposters\b",
    ),
    ("brands", r"\bbrands?\b|\bcompetitors?\b|\brivals?\b|\balternatives?\b|\bcompetition\b"),
    ("themes", r"\bthemes?\b|\btopics?\b|\baspects?\b|\bpros and cons\b|\bstrengths and weak"),
    (
        "complaints",
        r"\bcomplain|\bgripes?\b|\bmoan|\brants?\b|\bwhin|\bissues?\b|\bproblems?\b|\bdislik"
        r"|\bhat(?:e|es|ed)\b|\bcriti|\bfrustrat|\bannoy|\bpain points?\b|\bdownsides?\b"
        r"|\bdrawbacks?\b|\bconcerns?\b|\bgrievance|\bunhappy\b|\bdissatisf|\bdisappoint"
        r"|\bnegative (?:feedback|reviews?|comments?|experiences?|opinions?|things|points)\b"
        r"|\bwhat(?:'s| is) wrong\b|\b(?:don'?t|do not|doesn'?t) (?:\w+ ){0,2}(?:like|love|enjoy)\b"
        r"|\bbad (?:about|things)\b"
        r"|\bwors[te]\b|\bcons\b",
    ),
    (
        "praise",
        r"\bprais|\bpositive (?:feedback|reviews?|comments?|experiences?|things|points)\b"
        r"|\bstrengths?\b|\bpros\b|\bgood (?:about|things|points)\b"
        r"|\bbest (?:things?|part|about)\b|\bfavou?rite|\brecommend|\bhappy (?:with|about)\b"
        r"|\bwhat works\b|\bcompliment|\bappreciat|\b(?:like|love|enjoy)s? (?:about|most)\b"
        r"|\bwhat (?:do|does) (?:people|users|customers|they|folks|fans) (?:like|love|enjoy)\b",
    ),
    (
        "top",
        r"\btop\b|\bpopular|\bviral\b|\bhighest\b|\bperform|\bstandout|\bbest (?:posts?|videos?)"
        r"|\bmost (?:viewed|liked|commented|shared|engaging|engaged|popular|discussed|seen"
        r"|watched|negative|positive)\b|\b(?:views|likes|shares|engagement|reach)\b"
        r"|\bmost (?:\w+ )?(?:comments|replies)\b",
    ),
    (
        "sentiment",
        r"\bsentiment|\bfeel|\bmoods?\b|\bsplit\b|\bpositive|\bnegative|\bneutral\b"
        r"|\bperce(?:ive|ption)|\breception\b|\bopinions?\b|\btone\b"
        r"|\bhow (?:do|does) (?:people|users|they|customers) (?:see|view|rate)\b",
    ),
    (
        "overview",
        r"\bsummar|\boverview\b|\btl;?dr\b|\bwhat(?:'s| is) (?:going on|happening|new)\b"
        r"|\bkey (?:findings|insights|takeaways)\b|\binsights?\b|\bhighlights?\b|\bhow many\b"
        r"|\bvolume\b|\bstats?\b|\bstatistics\b|\bbreakdown\b|\bdescribe\b|\bwhat(?:'s| is) in\b"
        r"|\bwhat happened\b|\binteresting\b|\bsurpris|\bnotable\b|\bstand out\b",
    ),
    (
        "themes",
        r"\bsay|\bsaid\b|\btalk|\bdiscuss|\bmention|\bconversation|\bbuzz\b|\bthink"
        r"|\bwrit(?:e|es|ing)\b|\bdescrib",
    ),
    (
        "help",
        r"\bhelp\b|\bwhat can you\b|\bhow (?:do|can) i\b|^(?:hi|hello|hey)\b|\bthanks?\b"
        r"|\bthank you\b|\bwho are you\b",
    ),
)
"""(intent, pattern) rules over the lowercased question, in priority order."""

INTENTS = tuple(dict.fromkeys(intent for intent, _ in RULES))
_COMPILED = tuple((intent, re.compile(pattern)) for intent, pattern in RULES)

_SOURCE_NAMES = {
    "reddit": "reddit", "tiktok": "tiktok", "tik tok": "tiktok", "youtube": "youtube",
    "yt": "youtube", "instagram": "instagram", "insta": "instagram", "ig": "instagram",
    "linkedin": "linkedin",
}  # fmt: skip
_SOURCE = re.compile(r"\b(" + "|".join(sorted(_SOURCE_NAMES, key=len, reverse=True)) + r")\b")
_MOODS = (
    ("negative", re.compile(r"\bnegative|\bcomplain|\bcriti|\bangry\b|\bunhappy\b|\bwors[te]\b")),
    ("positive", re.compile(r"\bpositive|\bprais|\bhappy\b|\bfavou?rab")),
    ("neutral", re.compile(r"\bneutral")),
)
_METRICS = (
    ("num_views", re.compile(r"\bview|\bwatch|\bseen\b|\breach\b")),
    ("num_likes", re.compile(r"\blikes\b|\bliked\b")),
    ("num_comments", re.compile(r"\bcomment(?:s|ed)\b|\bdiscussed\b")),
    ("num_shares", re.compile(r"\bshares\b|\bshared\b")),
    ("engagement", re.compile(r"\bengag|\binfluen|\bpopular|\bbiggest\b")),
)
_UNITS = (
    ("day", re.compile(r"\bdai?ly\b|\b(?:per|by|each) day\b|\bdays\b")),
    ("week", re.compile(r"\bweek")),
    ("month", re.compile(r"\bmonth")),
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20,
}  # fmt: skip
_LIMIT = re.compile(r"\b(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")\b")
_WINDOW = re.compile(
    r"\b(?:in |over |during |for )?(?:the )?(?:last|past|previous|this|recent) "
    r"(?:(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r") )?(day|week|month|year)s?\b"
)
_WINDOW_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_CONTINUES = re.compile(
    r"^(?:and|also|what about|how about|same|now|ok|okay|but|then|only|just|plus)\b"
)
_REFERS_BACK = re.compile(
    r"\b(?:these|those|the above|the selected) (?:posts?|ones|mentions|videos)\b"
    r"|\b(?:this|the|last|latest) alert\b|\b(?:new|latest) (?:posts|mentions|ones)\b"
    r"|\bwhat(?:'s| is) new\b"
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def _split(text: str) -> list[str]:
    """The whitespace-separated words of a word-list literal."""
    return text.split()


_STOP = frozenset(
    _split(
        """a about above after again against all also am an and any are aren't as at be
        because been before being below between both but by can can't could couldn't did
        didn't do does doesn't doing don't done down during each either else etc ever every
        few for from further get gets getting got had has have having he her here hers him
        his how however i i'm if in into is isn't it it's its itself just me mine more my
        myself no nor not now of off on once one only or other others our ours out over own
        per please same she should since so some such than that that's the their theirs
        them themselves then there there's these they they're this those through to too
        under until up upon us very was wasn't we were what what's whats when where which
        while who whom whose why will with within without would you your yours tell show
        give list find see look let know want need like likes make makes made people person
        users user customers customer consumers folks everyone anyone someone somebody fans
        say says saying said talk talks talking think thinks thought post posts content
        dataset datasets collection collections video videos thing things stuff kind kinds
        type types lot lots much many main key overall general generally really actually
        honestly currently mostly most best top time times today yesterday recent recently
        lately last first latest new newest old oldest year years month months week weeks
        day days daily weekly monthly period periods date dates ago good great bad worse
        worst love loves loved hate hates hated enjoy enjoys happy unhappy feel feels
        feeling feelings mood moods tone split vs versus grow grows grew growth spike
        spikes rise rising rose risen drop drops dropped history ask asks asked asking hook
        hooks opening openings opener openers cta ctas call calls action actions voice
        voices poster posters viral highest view views viewed viewers viewer reach share
        shares shared brand brands rival rivals tldr stats stat volume count counts number
        numbers amount theme themes topic topics aspect aspects buzz help hello hey thanks
        thank ok okay source sources gripe gripes moan rant rants pros cons point points
        pain wrong whole selected above alert alerts ones their there's anything everything
        something nothing way ways part parts work works worked working use uses used using
        try tries tried trying well better effective effectively get go goes going come
        comes anything stand stands biggest main big most common commonly usually often
        typical typically exactly specifically regarding concerning related relating right
        currently among amongst across around toward towards via besides beyond despite
        except inside outside onto lot also whether any feedback review reviews experience
        experiences curious interesting important notable noteworthy useful relevant worth
        something anything tell"""
    )
)
# Word beginnings of the rules' vocabulary ("complain" covers complaints, complaining...).
_STEMS = tuple(
    _split(
        """complain grievanc criti frustrat annoy disappoint dissatisf downside drawback
        concern prais apprecia recommend complimen strength sentiment percei percep recept
        compar differ trend chang evolv timelin increas decreas declin question wonder
        engag perform popular influen creator grow author competi alternativ summar overvie
        insight highlight statisti conversat pattern cluster recurr audienc demograph
        paramet extract preview platform network channel discuss mention opinion favour
        favorit favourit negativ positiv neutral problem issue dislik follower profile
        account comment seaso happen standout breakdown describ"""
    )
)


@dataclass(frozen=True)
class Question:
    """A parsed question.

    ``intent`` is ``None`` when no rule fires; ``mood`` narrows posts to a sentiment;
    ``metric`` is a ``num_*`` field or ``engagement`` (``None``: not named); ``unit`` is
    ``day``, ``week`` or ``month``; ``window_days`` limits posts to the last days of the
    data; ``limit`` is how many items to list. ``continues`` marks a follow-up ("and on tiktok?"),
    ``refers_back`` a question about the previous posts ("these posts", "what's new").
    """

    text: str
    intent: str | None
    terms: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    mood: str | None = None
    metric: str | None = None
    unit: str | None = None
    window_days: int | None = None
    limit: int | None = None
    continues: bool = False
    refers_back: bool = False


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text]


def parse(text: str, names: Iterable[str] = ()) -> Question:
    """Read a question; ``names`` (dataset names, search texts) never become topic terms.

    Example:
        >>> q = parse("Top 3 negative posts by views in the last 2 weeks")
        >>> q.intent, q.mood, q.metric, q.limit, q.window_days
        ('top', 'negative', 'num_views', 3, 14)
    """
    lowered = " ".join(text.lower().replace("’", "'").split())
    window = _WINDOW.search(lowered)
    window_days = None
    if window is not None:
        window_days = _number(window[1] or "one") * _WINDOW_DAYS[window[2]]
    # A window names a time unit ("last week") without asking how things changed.
    plain = _WINDOW.sub(" ", lowered)
    intent = next((name for name, rule in _COMPILED if rule.search(plain)), None)
    sources = tuple(dict.fromkeys(_SOURCE_NAMES[name] for name in _SOURCE.findall(lowered)))
    if intent is None and len(sources) >= 2:
        intent = "compare"  # "reddit or tiktok?"
    if intent is None and window is not None:
        intent = "overview"  # "and in the last 30 days?"
    limits = [_number(found) for found in _LIMIT.findall(plain)]
    return Question(
        text=text,
        intent=intent,
        terms=_terms(plain, names),
        sources=sources,
        mood=next((mood for mood, rule in _MOODS if rule.search(lowered)), None),
        metric=next((name for name, rule in _METRICS if rule.search(plain)), None),
        unit=next((unit for unit, rule in _UNITS if rule.search(plain)), None),
        window_days=window_days,
        limit=next((n for n in limits if 0 < n <= 20), None),
        continues=bool(_CONTINUES.search(lowered)),
        refers_back=bool(_REFERS_BACK.search(lowered)),
    )


def _terms(lowered: str, names: Iterable[str]) -> tuple[str, ...]:
    excluded = set(_STOP) | set(_SOURCE_NAMES) | set(_NUMBER_WORDS)
    for name in names:
        excluded.update(_WORD.findall(name.lower()))
    terms: list[str] = []
    for word in _WORD.findall(_SOURCE.sub(" ", lowered)):
        if word in excluded or word.startswith(_STEMS) or word.isdigit() or len(word) < 3:
            continue
        plural = len(word) > 3 and word.endswith("s") and not word.endswith("ss")
        term = word[:-1] if plural else word
        if term not in terms and term not in excluded:
            terms.append(term)
    return tuple(terms)


def follow(question: Question, previous: Question | None) -> Question:
    """``question`` with what a follow-up leaves out taken from ``previous``.

    A question without an intent of its own, or one that opens like a follow-up ("and",
    "what about", "only"...), keeps the previous intent, topic terms, sources, sentiment,
    metric, unit, window and focus on earlier posts unless it sets them itself.
    """
    if previous is None or not (question.intent is None or question.continues):
        return question
    return replace(
        question,
        intent=question.intent or previous.intent,
        terms=question.terms or previous.terms,
        sources=question.sources or previous.sources,
        mood=question.mood or previous.mood,
        metric=question.metric or previous.metric,
        unit=question.unit or previous.unit,
        window_days=question.window_days or previous.window_days,
        limit=question.limit or previous.limit,
        refers_back=question.refers_back or previous.refers_back,
    )
