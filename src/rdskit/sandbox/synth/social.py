"""Social topics: the kinds of public talk the corpus writes besides products.

A query whose words name a public debate, health, politics or an event ("vaccine side
effects", "heat pump subsidy debate", "city council election", "a music festival") is
written about as that kind of talk, not as a product: people support or oppose it, ask, weigh
both sides, share what happened to them, post the news. Each :class:`TopicKind` is data: the
words that recognise it (:func:`kind_of`), its actors (who announces, campaigns, organises),
its issues, the contexts people speak from, its communities and platforms, the Art. 9
special category its posts can reveal (health data, political opinions), and its templates
per voice (:mod:`.corpus`'s voices, read here as stances), comments per mood, ads, media
scenes and hashtags. Nothing in this module knows a query: any query whose words fall in a
kind's lexicon gets that kind.

The voices keep their meaning for the latent labels (:mod:`.truth`): ``praise`` is
support or enthusiasm (positive), ``complaint`` opposition or worry (negative), ``story`` a
personal experience that went well (positive); every other voice is neutral. The voice is
also the post's latent stance (:func:`rdskit.sandbox.synth.truth.stance_of`).

Example:
    >>> kind_of("vaccine side effects").name, kind_of("city council election").name
    ('Health', 'Politics')
    >>> kind_of("heat pump subsidy debate").name, kind_of("a music festival").name
    ('Public policy', 'Events')
    >>> kind_of("oat milk") is None
    True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

__all__ = ["KINDS", "LOCAL_TEMPLATES", "STANCE", "TopicKind", "kind_hits", "kind_of", "strongest"]


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


@dataclass(frozen=True)
class TopicKind:
    """One kind of public talk: how a query about it is recognised and how its posts read.

    Placeholders in its templates are :mod:`.corpus`'s: ``{topic}`` the query's phrase,
    ``{brand}``/``{Brand}`` an actor, ``{rival}`` another actor or side, ``{aspect}`` and
    ``{aspect2}`` issues, ``{use}`` the context a person speaks from, ``{price}`` a figure,
    ``{n}``, ``{time}``, ``{person}``. Lists are comma-separated, figures (which hold
    commas) semicolon-separated.
    """

    name: str
    keywords: tuple[str, ...]
    actors: tuple[str, ...]
    issues: tuple[str, ...]
    contexts: tuple[str, ...]
    communities: tuple[str, ...]
    figures: tuple[str, ...]
    platforms: str
    special_category: str | None
    """The Art. 9 GDPR category its posts can reveal about their authors, if any."""
    open: Mapping[str, tuple[str, ...]]
    body: Mapping[str, tuple[str, ...]]
    """Voices whose body sentences differ from :data:`BODY` (the shared ones)."""
    comments: Mapping[str, tuple[str, ...]]
    ad_copy: tuple[str, ...]
    scenes: tuple[str, ...]
    hashtags: tuple[str, ...]


STANCE = {"praise": "support", "complaint": "oppose"}
"""A social post's latent stance by its voice (any other voice: ``none``, no stance taken)."""

TITLE = {
    "praise": _lines(
        """Why I support {topic}
        {Topic}: finally some good news"""
    ),
    "complaint": _lines(
        """{Topic} is a mistake
        I'm worried about {topic}"""
    ),
    "question": _lines(
        """Honest question about {topic}
        What do you make of {topic}?"""
    ),
    "comparison": _lines(
        """{Topic}: both sides
        The case for and against {topic}"""
    ),
    "howto": _lines(
        """{Topic}: what you need to know
        A practical guide to {topic}"""
    ),
    "story": _lines(
        """My experience with {topic}
        What {topic} was like for me"""
    ),
    "listicle": _lines(
        """{n} facts about {topic}
        {Topic} in {n} points"""
    ),
    "news": _lines(
        """{Topic}: the latest
        What changed on {topic} this week"""
    ),
    "pro": _lines(
        """What {topic} means for our sector
        Our work on {topic}"""
    ),
}
"""Titles (reddit, youtube) of every kind, per voice."""

BODY = {
    "praise": _lines(
        """Glad to see the {aspect} finally taken seriously.
        For {use} this is genuinely good news.
        The evidence on the {aspect2} is clearer than people think.
        Credit where it's due, {brand} got this one right."""
    ),
    "complaint": _lines(
        """Nobody has explained the {aspect} properly and people are angry.
        I'm worried what this means for {use}.
        {Brand} keeps ignoring the {aspect2}, which is unacceptable.
        It feels rushed and badly thought through."""
    ),
    "question": _lines(
        """I keep reading completely different things about the {aspect}.
        What does it actually mean for {use}?
        Does anyone have a reliable source on the {aspect2}?
        Not trying to start a fight, I just want to understand."""
    ),
    "comparison": _lines(
        """Supporters point to the {aspect}, critics to the {aspect2}.
        {Rival} says one thing, {brand} says another.
        Both sides have a point about {use}.
        The honest answer is that the {aspect} is still uncertain."""
    ),
    "howto": _lines(
        """First, check what applies to {use}.
        The official page explains the {aspect} in plain words.
        Keep the date in mind, it changes in {n} weeks.
        If in doubt, ask {brand} directly."""
    ),
    "story": _lines(
        """It went better than I expected and I'm glad I did it.
        The {aspect} was the part I worried about, and it was fine.
        My {person} came with me and we both felt reassured.
        Sharing in case it helps someone who is nervous about it."""
    ),
    "listicle": _lines(
        """1. The {aspect} matters more than the headlines suggest.
        2. {Rival} and {brand} disagree on the {aspect2}.
        3. It affects {use} the most.
        4. The figure to remember is {price}.
        5. Things are expected to change within {n} months."""
    ),
    "news": _lines(
        """{Rival} responded within hours.
        The change affects {use} first.
        The figure quoted is {price}.
        A decision on the {aspect2} is expected within {n} weeks."""
    ),
    "pro": _lines(
        """Our team looked at the {aspect} for {n} months.
        The data on {use} surprised us.
        Working with {rival} taught us a lot.
        Grateful to everyone who shared their experience with us."""
    ),
}
"""Body sentences of every kind, per voice (a kind's :attr:`TopicKind.body` replaces some)."""

CTA = {
    "reddit": _lines(
        """Curious what you all think, keep it civil.
        Edit: thanks for the thoughtful replies."""
    ),
    "tiktok": _lines(
        """Follow for more on {topic}
        Tell me your view in the comments"""
    ),
    "youtube": _lines(
        """Sources in the description.
        Let me know in the comments what you think."""
    ),
    "instagram": _lines(
        """Share this with someone who should see it.
        More in my stories."""
    ),
    "linkedin": _lines(
        """What's your experience? Share your thoughts in the comments.
        Happy to share our full report, message me."""
    ),
}

COMMENTS = {
    "positive": _lines(
        """Completely agree, this is long overdue.
        Thank you for saying this so clearly.
        Same here, it went fine for my {person} too.
        Really glad someone posted the facts."""
    ),
    "negative": _lines(
        """Hard disagree, the {aspect} is a real problem.
        People are right to be worried about the {aspect}.
        This is exactly why nobody trusts {brand} anymore.
        Terrible take, honestly."""
    ),
    "neutral": _lines(
        """Source?
        Does anyone have the actual numbers on the {aspect}?
        What about {use}?
        Genuinely curious where this is going."""
    ),
}
"""Comments of every kind, per mood (a kind's :attr:`TopicKind.comments` come first)."""

LOCAL_TEMPLATES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "es": {
        "positive": _lines(
            """Me encanta que por fin se hable de {topic}, ¡genial!
            Estoy muy contento con {topic}, lo recomiendo a todos."""
        ),
        "negative": _lines(
            """Sinceramente {topic} me decepcionó, es un desastre.
            Qué decepción con {topic}, todo es pésimo."""
        ),
        "neutral": _lines(
            """¿Alguien sabe qué cambia con {topic}?
            Hoy leí sobre {topic} por primera vez, ya os contaré."""
        ),
    },
    "fr": {
        "positive": _lines(
            """Franchement {topic}, c'est une excellente nouvelle !
            J'adore voir enfin {topic}, je recommande de s'informer."""
        ),
        "negative": _lines(
            """Franchement {topic} m'a déçu, quelle arnaque.
            Très mauvaise expérience avec {topic}, c'est nul."""
        ),
        "neutral": _lines(
            """Quelqu'un a des infos sur {topic} ?
            J'ai lu un article sur {topic} hier, je vous dis ce que j'en pense."""
        ),
    },
    "de": {
        "positive": _lines(
            """Endlich {topic}, ich bin begeistert!
            {Topic} ist wirklich toll, klare Empfehlung sich zu informieren."""
        ),
        "negative": _lines(
            """Ehrlich gesagt hat mich {topic} enttäuscht, eine Frechheit.
            Total enttäuscht von {topic}, das ist schlecht gemacht."""
        ),
        "neutral": _lines(
            """Weiß jemand mehr über {topic}?
            Heute zum ersten Mal von {topic} gelesen, mal sehen."""
        ),
    },
    "pt": {
        "positive": _lines(
            """Amei a notícia sobre {topic}, sensacional!
            {Topic} é ótimo, recomendo demais se informar."""
        ),
        "negative": _lines(
            """Sinceramente {topic} me decepcionou, que decepção.
            {Topic} é horrível, a situação é péssima."""
        ),
        "neutral": _lines(
            """Alguém sabe o que muda com {topic}?
            Li sobre {topic} ontem, depois conto o que achei."""
        ),
    },
}
"""Non-English posts of every kind: short lines per language and mood (see
:data:`rdskit.sandbox.synth.corpus.LOCAL_TEMPLATES` for products)."""


def _kind(
    name: str,
    *,
    keywords: str,
    actors: str,
    issues: str,
    contexts: str,
    communities: str,
    figures: str,
    platforms: str,
    special_category: str | None,
    open: Mapping[str, str],
    body: Mapping[str, str],
    comments: Mapping[str, str],
    ad_copy: str,
    scenes: str,
    hashtags: str,
) -> TopicKind:
    return TopicKind(
        name,
        _split(keywords),
        _split(actors),
        _split(issues),
        _split(contexts),
        _split(communities),
        tuple(part.strip() for part in figures.split(";")),
        platforms,
        special_category,
        {voice: _lines(text) for voice, text in open.items()},
        {voice: _lines(text) for voice, text in body.items()},
        {mood: _lines(text) for mood, text in comments.items()},
        _lines(ad_copy),
        _lines(scenes),
        tuple(hashtags.split()),
    )


KINDS: tuple[TopicKind, ...] = (
    _kind(
        "Health",
        keywords="vaccine, vaccination, vaccinated, jab, booster, covid, long covid, flu, "
        "measles, side effects, pandemic, virus, hospital, clinic, doctor, nurse, health, "
        "healthcare, public health, mental health, therapy, medication, medicine, disease, "
        "cancer, diabetes, asthma, screening, waiting list, vacuna, vacunación, vaccin, "
        "impfung, impfstoff, vacina, santé, salud, gesundheit, saúde",
        actors="the health ministry, the medicines agency, the regional health authority, "
        "GP practices, the hospital trust, pharmacists",
        issues="side effects, safety data, booking appointments, waiting times, "
        "access for older people, misinformation, cost to the health service, trust in doctors",
        contexts="my kids, my elderly parents, my pregnancy, my job in a care home, "
        "my asthma, my chronic illness",
        communities="AskDocs, medicine, HealthAnxiety, publichealth, Parenting",
        figures="1 in 10,000; 48 hours; 3 weeks; 12%; 2 days; 6 months",
        platforms="reddit 28, tiktok 22, youtube 14, instagram 20, linkedin 16",
        special_category="health data",
        open={
            "praise": """Really glad {topic} is finally getting proper attention.
                Honestly grateful for how {topic} was handled here.
                Good news on {topic}: the facts are reassuring.""",
            "complaint": """I'm scared about {topic} and nobody is listening.
                Why is nobody being straight with us about {topic}?
                Really worried about {topic} after what happened to my {person}.""",
            "question": """Can someone explain {topic} to me like I'm five?
                Has anyone here had to deal with {topic}?
                Should I be worried about {topic}?""",
            "comparison": """Doctors and online forums say very different things about {topic}.
                Weighing the risks and benefits of {topic} as calmly as I can.""",
            "howto": """What to do if you're worried about {topic}, from someone who asked.
                How to get reliable information on {topic}.""",
            "story": """Sharing my experience with {topic} in case it helps someone.
                Last month I finally dealt with {topic} myself.
                As someone with a chronic illness, {topic} was a big step for me.""",
            "listicle": """{n} things my doctor told me about {topic}.
                {n} myths about {topic} that need to go.""",
            "news": """{Brand} published new guidance on {topic}.
                New figures on {topic} were released this week.""",
            "pro": """As a health professional, here is what I see about {topic}.
                Our clinic's experience with {topic} over {n} months.""",
        },
        body={
            "story": """I had a sore arm and felt tired for {price}, nothing more.
                I was anxious beforehand because of my asthma, but the staff were lovely.
                It went better than I expected and I'm glad I did it.
                Sharing in case it helps someone who is nervous about it.""",
            "complaint": """My {person} felt awful for {price} and nobody took it seriously.
                The {aspect} information is confusing and people are angry.
                I'm worried what this means for {use}.
                {Brand} keeps ignoring the {aspect2}, which is unacceptable.""",
        },
        comments={
            "positive": "Same for me, mild symptoms and then fine.",
            "negative": "My doctor dismissed me too, it's awful.",
            "neutral": "Did you report it to your doctor?",
        },
        ad_copy="""Questions about {topic}? {Brand} has the facts.
            {Brand}: talk to your pharmacist about {topic}.
            Protect the people you love: find out about {topic} from {brand}.""",
        scenes="""Someone talking about {topic} to the camera
            A waiting room with a poster about {topic}
            An infographic about {topic}""",
        hashtags="health publichealth askadoctor wellbeing factcheck",
    ),
    _kind(
        "Politics",
        keywords="election, elections, vote, voting, voter, voters, ballot, candidate, "
        "candidates, mayor, mayoral, council, councillor, parliament, congress, senate, "
        "referendum, government, minister, president, politician, politicians, polls, "
        "polling, primaries, elección, elecciones, élection, élections, wahl, wahlen, eleição",
        actors="the incumbent mayor, the Civic Alliance, the People's Party, the Greens, "
        "the independent candidate, the electoral commission",
        issues="turnout, the candidates' debate, housing promises, public transport plans, "
        "local taxes, campaign spending, postal votes, polling stations",
        contexts="first-time voters, my neighbourhood, young renters, pensioners, "
        "small businesses, students",
        communities="politics, PoliticalDiscussion, NeutralPolitics, localpolitics",
        figures="38% turnout; 2 points; 51%; 1,200 votes; 4 years; 3 seats",
        platforms="reddit 34, tiktok 20, youtube 18, instagram 14, linkedin 14",
        special_category="political opinions",
        open={
            "praise": """I'm voting for {rival} in {topic} and I'm proud of it.
                Genuinely hopeful about {topic} for the first time in years.
                Great to see so many people engaged in {topic}.""",
            "complaint": """{Topic} is a disaster and the candidates know it.
                I'm angry about how {topic} is being run.
                Not voting for {brand} in {topic}, never again.""",
            "question": """Who are you voting for in {topic}, and why?
                Does anyone know where to find neutral info on {topic}?
                What actually changes after {topic}?""",
            "comparison": """Comparing the manifestos for {topic} line by line.
                The main candidates in {topic} side by side, as fairly as I can.""",
            "howto": """How to register in time for {topic}.
                Everything you need to vote in {topic}.""",
            "story": """I volunteered at a polling station during {topic}.
                Took my {person} to vote in {topic}, a good day.""",
            "listicle": """{n} things to know before {topic}.
                {n} promises made during {topic} worth tracking.""",
            "news": """Early results from {topic} are coming in.
                {Brand} launched its platform for {topic} today.""",
            "pro": """Our research team followed {topic} for {n} months.
                What {topic} means for local organisations.""",
        },
        body={
            "praise": """Their plan for the {aspect} is the best I've seen.
                For {use} this is genuinely good news.
                I'm proud to vote for people who take the {aspect2} seriously.
                Credit where it's due, the campaign got this one right.""",
        },
        comments={
            "positive": "Voting the same way, great to see.",
            "negative": "Never voting for them, their record is terrible.",
            "neutral": "Where can I check my polling station?",
        },
        ad_copy="""Paid for by {brand}: vote on election day.
            {Brand}: a better plan for {aspect}.
            Your vote counts: {brand} asks you to turn out for {topic}.""",
        scenes="""Campaign posters about {topic}
            A queue outside a polling station
            A candidate speaking about {topic} at a rally""",
        hashtags="vote election politics localelection democracy",
    ),
    _kind(
        "Public policy",
        keywords="subsidy, subsidies, ban, tax, taxes, policy, law, regulation, debate, "
        "reform, rent control, rent cap, speed limit, congestion charge, immigration, "
        "minimum wage, protest, climate policy, zoning, housing crisis, pension, "
        "pensions, tariff, tariffs, universal basic income, low emission zone, subvención, "
        "subvention, förderung, subsídio, impuesto, ley, loi, gesetz",
        actors="the government, the opposition, the environment ministry, the city council, "
        "consumer groups, industry groups",
        issues="costs for households, fairness, enforcement, the evidence, who pays, "
        "the timeline, exemptions, the impact on renters",
        contexts="low-income households, renters, small businesses, commuters, farmers, "
        "families with kids",
        communities="Economics, europe, urbanplanning, PoliticalDiscussion, energy",
        figures="€3,000; 15%; £250 a year; 2030; 40,000 households; 0.5%",
        platforms="reddit 30, tiktok 14, youtube 16, instagram 12, linkedin 28",
        special_category=None,
        open={
            "praise": """{Topic} is the right call and I'm glad it's happening.
                Finally, {topic}: this will help a lot of people.
                Strongly support {topic}, and here's why.""",
            "complaint": """{Topic} is going to hurt the people who can least afford it.
                I'm against {topic}, it's unfair and badly designed.
                Angry about {topic}: who actually asked for this?""",
            "question": """Can someone explain who pays for {topic}?
                Is {topic} actually going to work?
                What does {topic} change for ordinary people?""",
            "comparison": """The arguments for and against {topic}, as fairly as I can.
                Other countries tried {topic}: what the evidence says.""",
            "howto": """How to check whether {topic} applies to you.
                What to do now that {topic} is coming.""",
            "story": """We applied under {topic} {time} and it worked out.
                {Topic} made a real difference for my family.""",
            "listicle": """{n} facts about {topic} nobody mentions.
                {n} questions {topic} still has to answer.""",
            "news": """{Brand} announced the details of {topic}.
                The vote on {topic} has been scheduled.""",
            "pro": """Our policy team analysed {topic} for {n} months.
                What {topic} means for businesses like ours.""",
        },
        body={},
        comments={
            "positive": "Fair policy, about time.",
            "negative": "This will cost families a fortune, it's unfair.",
            "neutral": "Is there an impact assessment published?",
        },
        ad_copy="""{Brand}: the facts about {topic}.
            Have your say on {topic}: {brand} wants to hear from you.
            {Topic} explained by {brand}, in five minutes.""",
        scenes="""A chart about {topic}
            People protesting about {topic}
            A town hall meeting on {topic}""",
        hashtags="policy debate haveyoursay economy climate",
    ),
    _kind(
        "Events",
        keywords="festival, festivals, music festival, concert, concerts, gig, world tour, "
        "world cup, olympics, parade, carnival, conference, eurovision, pride, "
        "premiere, exhibition, expo, championship, cup final, festival de, concierto, "
        "konzert",
        actors="the organisers, the venue, the city, the ticketing site, the headliner, "
        "local residents",
        issues="ticket prices, the line-up, crowd safety, queues, the sound, accessibility, "
        "transport home, the weather",
        contexts="my first festival, a family day out, a night out with friends, "
        "a weekend trip, my birthday, wheelchair users",
        communities="festivals, Music, concerts, LiveMusic, travel",
        figures="£89; €150; 2 hours; 45,000 people; 3 days; $65",
        platforms="reddit 12, tiktok 32, youtube 14, instagram 38, linkedin 4",
        special_category=None,
        open={
            "praise": """{Topic} was absolutely amazing, best weekend of the year!
                Still buzzing after {topic}, what a vibe.
                {Topic} exceeded every expectation, I loved it.""",
            "complaint": """{Topic} was a shambles and the organisers should apologise.
                Never again: {topic} was badly organised and unsafe.
                So disappointed with {topic} this year.""",
            "question": """Is {topic} worth going to this year?
                Anyone going to {topic}? Tips welcome.
                What's the best way to get to {topic}?""",
            "comparison": """{Topic} this year versus last year: better or worse?
                Weighing {topic} against the other big events this summer.""",
            "howto": """How to survive {topic}: a packing list.
                Getting the most out of {topic} on a budget.""",
            "story": """Went to {topic} with my {person} and it was unforgettable.
                My first time at {topic}, and I'm already planning next year.""",
            "listicle": """{n} things I wish I knew before {topic}.
                {n} highlights from {topic}.""",
            "news": """{Brand} confirmed the dates for {topic}.
                Tickets for {topic} went on sale this morning.""",
            "pro": """Our team worked behind the scenes at {topic}.
                What {n} years of running {topic} taught us.""",
        },
        body={
            "praise": """The {aspect} was perfect and the {aspect2} was better than I expected.
                Great for {use}, I loved every minute.
                Worth every penny at {price}.""",
            "complaint": """The {aspect} was terrible and we waited {price} in the rain.
                Paid {price} for that, which is ridiculous.
                The {aspect2} was a mess and nobody cared.""",
        },
        comments={
            "positive": "Best weekend ever, see you next year!",
            "negative": "The queues were awful, never again.",
            "neutral": "Which day did you go?",
        },
        ad_copy="""{Topic}: tickets on sale now from {brand}.
            Don't miss {topic}. Book with {brand} today.
            Last tickets for {topic}, from {price}.""",
        scenes="""A crowd at {topic}
            A stage lit up at night
            Friends taking a selfie at {topic}""",
        hashtags="festival livemusic weekend goodvibes events",
    ),
)
"""The kinds of public talk (see the module docs); :func:`kind_of` recognises them."""


@cache
def _keyword_kinds() -> tuple[re.Pattern[str], Mapping[str, TopicKind]]:
    owner = {k: kind for kind in reversed(KINDS) for k in kind.keywords}
    # Longest phrases first so "long covid" counts once, not as "covid" too; plurals too.
    words = sorted(owner, key=lambda k: (-len(k), k))
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")s?(?![\w-])", re.I)
    return pattern, owner


def kind_hits(text: str) -> Counter[str]:
    """How many of each kind's keywords ``text`` names (a kind's name -> hits).

    Example:
        >>> kind_hits("vaccine side effects debate")
        Counter({'Health': 2, 'Public policy': 1})
    """
    pattern, owner = _keyword_kinds()
    return Counter(owner[m.group(1).lower()].name for m in pattern.finditer(text))


def kind_of(text: str) -> TopicKind | None:
    """The kind of public talk ``text`` names most (ties to the kind listed first in
    :data:`KINDS`), or None when it names none.

    Example:
        >>> kind_of("phone ban in schools").name
        'Public policy'
    """
    return strongest(kind_hits(text))


def strongest(hits: Mapping[str, int]) -> TopicKind | None:
    """The kind with the most ``hits`` (:func:`kind_hits`; ties to the kind listed first),
    or None without any."""
    top = max(hits.values(), default=0)
    return next((kind for kind in KINDS if hits.get(kind.name, 0) == top), None) if top else None
