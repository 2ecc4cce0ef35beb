"""Words the sandbox assistant's planner knows: intent cues, slot cues, and the function and
instruction words of each supported language (English, French, Spanish, German,
Portuguese), which are never search terms.

Questions in another language are read by first mapping their cue words onto English ones
(:data:`TRANSLATIONS`, applied by the front end's one translator,
:func:`rdskit.sandbox.assistant.frontend.to_english`), so one ordered rule table
(:data:`INTENT_RULES`) serves every language. Rules are regular expressions over the
lowercased, translated clause; the first rule that fires names the clause's intent.

Example:
    >>> detect_language("¿De qué se quejan los usuarios?"), detect_language("Top posts?")
    ('es', 'en')
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = [
    "CONCEPTS",
    "CONTINUES",
    "FUNCTION_WORDS",
    "INSTRUCTION_WORDS",
    "INTENTS",
    "INTENT_RULES",
    "LANGUAGES",
    "METRIC_RULES",
    "NUMBER_WORDS",
    "SHORTHAND",
    "SOURCE_NAMES",
    "STOP_WORDS",
    "TOPIC_CUES",
    "TRANSLATIONS",
    "detect_language",
]

LANGUAGES = ("en", "fr", "es", "de", "pt", "it")
"""Languages whose questions the planner reads (answers are in English)."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words per language: their presence tells the language, and none is a term.
_FUNCTION = {
    "en": _words(
        """a an the of to in on at for from with by about and or but is are was were be been
        do does did what which who whom whose how why when where this that these those it its
        they them their there here i me my we us our you your he she his her any some all
        each every no not only just also too very so as than then into over under more most
        less least can could would should will shall may might must have has had am if else
        whether per via up down out off again once both either neither counting including
        altogether overall get got gets went"""
    ),
    "fr": _words(
        """le la les un une des du de d l au aux et ou mais est sont était quel quelle quels
        quelles qui que quoi comment pourquoi quand où ce cet cette ces il elle ils elles on
        nous vous je me moi mon ma mes ton ta tes son sa ses leur leurs dans sur pour par avec
        sans en y ne pas plus moins très aussi se fais fait faire donne donner dis dire
        montre montrer sont ont a entre elles eux ceux celles y-a-t-il a-t-il eu"""
    ),
    "es": _words(
        """el la los las un una unos unas de del al y o pero es son era qué que quién quiénes
        cuál cuáles cómo por para cuándo dónde este esta estos estas ese esa eso lo le les se
        me mi mis tu tus su sus nuestro nuestra en con sin sobre no más menos muy también hay
        dame dime muestra muéstrame están está hubo había hay solo sólo cuánto cuánta
        cuántos cuántas"""
    ),
    "de": _words(
        """der die das den dem des ein eine einen einem einer und oder aber ist sind war was
        wer wie warum wann wo welche welcher welches worüber diese dieser dieses es sie er wir
        ihr ich mich mir mein meine unser in im an am auf für von mit über zu zum zur nicht
        kein keine mehr sehr auch sich gib zeig zeige mir uns gibt gab waren hat hatte
        haben wurden wurde werden jeweils insgesamt bekommt bekommen erhält erhalten"""
    ),
    "pt": _words(
        """o a os as um uma uns umas de do da dos das e ou mas é são era que qual quais quem
        como por para quando onde este esta estes estas esse essa isso no na nos nas em com
        sem sobre não mais menos muito também se me meu minha seu sua me dê mostre diga há
        estão está houve havia teve tiveram foram foi só apenas"""
    ),
    "it": _words(
        """il lo gli i le un uno una di del dello della dei degli delle al allo alla ai agli
        alle da dal dalla dai dagli nel nello nella nei negli nelle sul sulla sui su con per
        tra fra che chi cosa quale quali qual quanti quante quanto quanta ed è sono era
        questo questa questi queste quello quella ci si mi ti non più anche molto ha hanno
        stati stato stata viene vengono sia solo soltanto"""
    ),
}

# Words that say what to do or how to answer, never what to search for (all languages).
_INSTRUCTION = _words(
    """exact exactly quote quotes quoting alongside together write writing report reports
    average averages mean median give giving list listing show showing tell name find get pull
    compare comparison count counts number numbers total totals amount please pls plz kindly
    could would thanks thank cheers hi hello hey ok okay sure short brief briefly quick
    quickly detailed detail details full simple simply few several many much lot lots
    answer answers data dataset datasets here insight insights findings finding analysis
    analyse analyze breakdown break split distribution distributed based overall general
    generally main key biggest big top best worst highest lowest least most run runs running
    ran boss manager team teams client clients stakeholder stakeholders executive executives
    marketing product leadership colleague colleagues exec deck slide slides email
    summary summarise summarize summarised summarized overview describe explain explanation
    people person persons folks users user customers customer consumers consumer everyone
    anyone someone somebody fans audience public post posts posting posted content
    mention mentions mentioned mentioning mentionned thing things stuff kind kinds type
    types sort sorts really actually honestly currently mostly usually often typically
    common commonly specific specifically regarding concerning related relating like
    likes liked love loves loved hate hates hated say says saying said talk talks talking
    think thinks thought feel feels felt see seen look looking want wanted need needed
    know knowing let make makes made go goes going come comes use uses used using way
    ways part parts whole way vs versus between among across around toward towards
    today yesterday tomorrow week weeks weekly month months monthly year years yearly day
    days daily period periods time times timeline date dates ago recent recently lately
    last past previous first latest newest oldest new old this since until before after
    during within now currently something anything everything nothing somewhat same
    other others another else only instead which whichever option options one ones two
    three four five six seven eight nine ten eleven twelve fifteen twenty hundred
    good great bad nice cool fine okay ok interesting important notable noteworthy useful
    relevant worth worthy possible possibly maybe perhaps probably understand understanding
    help helpful idea ideas sense overall generally various top-level high level
    i'd i'm i've we'd we're you're it's that's what's there's let's don't doesn't didn't
    isn't aren't wasn't weren't can't cannot won't wouldn't shouldn't couldn't r u ur pl
    whats wat waht whta teh ppl plz thx pls tho takeaway takeaways review reviews video
    videos clip clips reel reels difference differences line lines work works working start
    starts begin begins happening happen lately viewer viewers reader readers stand stands
    drive drives driving active place places appear appears used come up different
    express expresses react reacts reaction reactions promise promises raise raises
    got gotten gets getting did done doing does seem seems seemed seeming look looks looked
    try tries tried trying put puts take takes took taken give gave given went gone keep
    keeps kept bring brings brought happened happens mean means meant wants needs got
    still even ever never always sometimes bit little small high low long right left sure
    true false real enough especially mainly mostly nearly quite rather somewhat soon thus
    therefore however although though yet instead otherwise including unlike despite
    already almost along whatever whenever wherever whoever whichever anybody everybody
    nobody someone everyone anything everything nothing something stuff thing things"""
)

# Cue words of intents and slots: they ask for an analysis, so they are not terms either.
_CUES = _words(
    """sentiment sentiments mood moods tone feeling feelings opinion opinions perception
    perceive perceived reception positive positives negative negatives neutral positivity
    negativity complain complains complained complaining complaint complaints gripe gripes
    moan moans rant rants whine issue issues problem problems pain painpoints dislike
    dislikes frustration frustrations frustrated annoy annoyed annoying annoys concern
    concerns criticism criticisms critical critique downside downsides drawback drawbacks
    wrong unhappy happy dissatisfied disappointed disappointment grievance grievances praise
    praises praised praising appreciate appreciated appreciation strengths strength
    weaknesses weakness pros cons compliment compliments favourite favorite favorites
    favourites enjoy enjoys enjoyed theme themes topic topics subject subjects aspect aspects
    conversation conversations discuss discussed discussing discussion discussions buzz
    popular viral views view viewed viewers watched watch shares shared share comments
    comment commented commenter commenters reply replies replied engagement engaging engaged
    engage rate rates interactions interaction reach performing performed perform
    performance standout author authors creator creators influencer influencers influential
    account accounts voice voices poster posters who followers follower verified
    competitor competitors rival rivals alternative alternatives brand brands co-mention
    co-mentions comention ad ads advert adverts advertisement advertisements advertiser
    advertisers sponsored sponsor sponsors promoted promotion promotions paid campaign
    campaigns organic emotion emotions emotional angry anger joy joyful sad sadness fear
    afraid scared surprise surprised disgust disgusted language languages country countries
    geography geographic region regions location locations based located where trend
    trends trending volume spike spikes peak peaks busiest quiet growing grow grew growth
    shrinking shrink declining decline increase increased increasing decrease decreased
    change changed changes changing evolve evolved over time question questions ask asks
    asked asking wonder wondering curious hook hooks opening openings opener openers open
    opens cta ctas call calls action actions recommend recommends recommendation
    recommendations suggest suggestion suggestions advice advise should next steps
    improve improvement strategy plan actionable act pattern patterns cluster clusters
    parameter parameters preview previews demographic demographics source sources platform
    platforms network networks channel channels site sites social media example examples
    sample samples instance instances excerpt excerpts many how stats statistics stat
    metrics metric median mean typical percent percentage share ratio proportion split
    by per each every overall whole summary tldr tl dr gist status rundown recap"""
)

FUNCTION_WORDS: frozenset[str] = frozenset().union(*_FUNCTION.values())
"""Function words of every supported language (articles, pronouns, prepositions...)."""

INSTRUCTION_WORDS: frozenset[str] = _INSTRUCTION
"""Words that say what to do or how to answer (never a search term, never a filter)."""
STOP_WORDS: frozenset[str] = FUNCTION_WORDS | _INSTRUCTION | _CUES
"""Words that are never search terms, in every supported language."""

TOPIC_CUES = re.compile(
    r"\b(?:about|regarding|concerning|re|mentioning|mention|mentions|mentioned|on the topic of"
    r"|related to|around|with the word|containing|contain|contains|named|called|for"
    r"|sur|à propos de|concernant|sobre|acerca de|über|zu|zum|zur|sobre o|sobre a)\s+$"
)
"""A word right after one of these (articles skipped) is meant as a search term."""

SOURCE_NAMES: Mapping[str, str] = {
    "reddit": "reddit",
    "tiktok": "tiktok",
    "tik tok": "tiktok",
    "tik-tok": "tiktok",
    "youtube": "youtube",
    "yt": "youtube",
    "you tube": "youtube",
    "instagram": "instagram",
    "insta": "instagram",
    "ig": "instagram",
    "linkedin": "linkedin",
    "linked in": "linkedin",
    "redit": "reddit",
    "tiktoc": "tiktok",
    "youtub": "youtube",
    "instgram": "instagram",
}
"""Names (and common misspellings) of the sources, to the source's wire name."""

CONCEPTS: Mapping[str, tuple[str, ...]] = {
    "price": (
        "price",
        "pricing",
        "cost",
        "pay",
        "paid",
        "how much",
        "expensive",
        "cheap",
        "overpriced",
        "pricey",
        "afford",
    ),
    # Phrases only: "buy" alone is also "should I buy it?", not where to.
    "where to buy": (
        "where to buy",
        "where can i buy",
        "where do i buy",
        "where do you buy",
        "where did you buy",
        "where you bought",
        "where did you get",
        "where can i get",
        "where to get",
        "where to find",
        "where can i find",
        "where is it sold",
        "which store",
        "which shop",
        "in stock",
    ),
}
"""What a question about a subject means in the words people write: a comment *asking*
how much something costs says "How much did you pay?" or "is it expensive?", one asking
where to buy it "Where did you buy it?"."""

NUMBER_WORDS: Mapping[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "a couple of": 2,
    "a couple": 2,
    "a few": 3,
    "a handful of": 5,
    "un": 1,
    "deux": 2,
    "trois": 3,
    "cinq": 5,
    "dix": 10,
    "dos": 2,
    "tres": 3,
    "cinco": 5,
    "diez": 10,
    "zwei": 2,
    "drei": 3,
    "fünf": 5,
    "zehn": 10,
    "três": 3,
    "dez": 10,
}


# Cue phrases of other languages, mapped onto English cue words (longest first).
TRANSLATIONS: Mapping[str, Mapping[str, str]] = {
    "fr": {
        "se plaignent": "complain",
        "se plaint": "complain",
        "plaintes": "complaints",
        "plainte": "complaint",
        "reproches": "complaints",
        "problèmes": "problems",
        "sentiment général": "overall sentiment",
        "ressenti": "sentiment",
        "sujets": "topics",
        "sujet": "topic",
        "thèmes": "themes",
        "résumé": "summary",
        "résume": "summarize",
        "résumer": "summarize",
        "aperçu": "overview",
        "les plus populaires": "most popular",
        "populaires": "popular",
        "publications": "posts",
        "les plus vues": "most viewed",
        "aiment": "like",
        "négatifs": "negative",
        "négatives": "negative",
        "négatif": "negative",
        "positifs": "positive",
        "positives": "positive",
        "combien": "how many",
        "marques": "brands",
        "auteurs": "authors",
        "créateurs": "creators",
        "commentaires": "comments",
        "émotions": "emotions",
        "langues": "languages",
        "pays": "countries",
        "publicités": "ads",
        "recommandations": "recommendations",
        "rapport": "report",
        "tendance": "trend",
        "comparer": "compare",
    },
    "es": {
        "se quejan": "complain",
        "quejan": "complain",
        "quejas": "complaints",
        "queja": "complaint",
        "problemas": "problems",
        "sentimiento": "sentiment",
        "opinión": "opinion",
        "temas": "topics",
        "tema": "topic",
        "resumen": "summary",
        "resume": "summarize",
        "más populares": "most popular",
        "populares": "popular",
        "publicaciones": "posts",
        "negativos": "negative",
        "negativas": "negative",
        "positivos": "positive",
        "positivas": "positive",
        "cuántos": "how many",
        "cuántas": "how many",
        "marcas": "brands",
        "autores": "authors",
        "comentarios": "comments",
        "emociones": "emotions",
        "idiomas": "languages",
        "países": "countries",
        "anuncios": "ads",
        "recomendaciones": "recommendations",
        "informe": "report",
        "tendencia": "trend",
        "comparar": "compare",
        "les gusta": "like",
    },
    "de": {
        "beschweren sich": "complain",
        "beschweren": "complain",
        "beschwerden": "complaints",
        "beschwerde": "complaint",
        "probleme": "problems",
        "stimmung": "sentiment",
        "meinung": "opinion",
        "themen": "topics",
        "thema": "topic",
        "zusammenfassung": "summary",
        "fasse": "summarize",
        "überblick": "overview",
        "beliebtesten": "most popular",
        "beliebt": "popular",
        "beiträge": "posts",
        "beiträgen": "posts",
        "negativen": "negative",
        "negative": "negative",
        "positiven": "positive",
        "wie viele": "how many",
        "marken": "brands",
        "autoren": "authors",
        "kommentare": "comments",
        "emotionen": "emotions",
        "sprachen": "languages",
        "länder": "countries",
        "anzeigen": "ads",
        "werbung": "ads",
        "empfehlungen": "recommendations",
        "bericht": "report",
        "vergleiche": "compare",
        "mögen": "like",
        "gefällt": "like",
    },
    "pt": {
        "reclamações": "complaints",
        "reclamação": "complaint",
        "reclamam": "complain",
        "queixas": "complaints",
        "problemas": "problems",
        "sentimento": "sentiment",
        "opinião": "opinion",
        "temas": "topics",
        "tema": "topic",
        "resumo": "summary",
        "resuma": "summarize",
        "mais populares": "most popular",
        "populares": "popular",
        "publicações": "posts",
        "negativos": "negative",
        "negativas": "negative",
        "positivos": "positive",
        "positivas": "positive",
        "quantos": "how many",
        "quantas": "how many",
        "marcas": "brands",
        "autores": "authors",
        "comentários": "comments",
        "emoções": "emotions",
        "idiomas": "languages",
        "países": "countries",
        "anúncios": "ads",
        "recomendações": "recommendations",
        "relatório": "report",
        "tendência": "trend",
        "comparar": "compare",
        "gostam": "like",
    },
}

SHORTHAND: Mapping[str, str] = {
    "ppl": "people",
    "pls": "please",
    "plz": "please",
    "r": "are",
    "u": "you",
    "ur": "your",
    "abt": "about",
    "wat": "what",
    "waht": "what",
    "whta": "what",
    "teh": "the",
    "hw": "how",
    "thx": "thanks",
    "b/c": "because",
    "giv": "give",
    "gimme": "give me",
    "wanna": "want to",
    "compair": "compare",
    "sentimnet": "sentiment",
    "sentimetn": "sentiment",
    "complian": "complain",
    "avg": "average",
    "whats": "what is",
    "hav": "have",
    "hv": "have",
    "vid": "video",
    "vids": "videos",
    "pic": "image",
    "pics": "images",
    "tho": "though",
    "w/o": "without",
    "thru": "through",
}
"""Chat shorthand and common slips, the one table both readers repair with."""

# A clause that opens like this continues the previous question (a follow-up).
CONTINUES = re.compile(
    r"^(?:and|also|what about|how about|same|now|ok|okay|but|then|only|just|plus|what if"
    r"|et|y|und|e|e quanto|et pour|y en|und auf|et sur|what abt)\b"
)

# (intent, rule) in priority order: the first rule that fires names the clause's intent.
INTENT_RULES: tuple[tuple[str, str], ...] = (
    (
        "help",
        r"^(?:help|hi|hello|hey|thanks?|thank you)\W*$|\bwhat can (?:you|i) (?:do|ask)\b"
        r"|\bhow (?:do|can) i use\b|\bwho are you\b|\bwhat do you do\b",
    ),
    (
        "authors",
        r"\b(?:top|biggest|main|key|leading|most active|which|best) (?:\d+ )?(?:creators"
        r"|influencers|authors|accounts|voices|posters)\b"
        r"|^who (?:\w+ ){0,2}(?:posts?|complains?|writes?|talks?|praises?)\b.*\bmost\b",
    ),
    (
        "report",
        r"\b(?:a|the|short|brief|quick|full|weekly|monthly|my|our|small|little|concise)"
        r" (?:\w+ )?report\b|\breport (?:for|on|about|of)\b|^report\b|\bwrite[- ]?up\b"
        r"|\bbriefing\b|\bexecutive summary\b"
        r"|\bone[- ]pager\b|\bmemo\b|\bbrief me\b",
    ),
    (
        "recommendations",
        r"\brecommend(?!s? it)|\bsuggest|\badvice\b|\badvise\b"
        r"|\bshould (?:we|i|the brand|they|our)\b|\bnext steps?\b"
        r"|\baction items?\b|\bactionable\b|\bwhat to do\b|\bhow (?:can|could) we\b"
        r"|\bimprove\b|\bstrategy\b",
    ),
    ("patterns", r"\bpatterns?\b|\bclusters?\b"),
    ("audience", r"\baudience (?:dataset|profiles?)s?\b|\bdemographics?\b|\baudience\b"),
    ("parameters", r"\bcustom param|\bparameters?\b|\bextracted values?\b"),
    ("previews", r"\bresearch previews?\b|\bpreviews?\b"),
    ("languages", r"\bhow many (?:different )?languages\b"),
    ("comments", r"\bhow many comments\b|\bnumber of comments\b"),
    (
        "authors",
        r"\bhow many (?:unique |different |distinct )?(?:authors|creators|accounts"
        r"|posters|influencers)\b",
    ),
    (
        "engagement",
        r"\b(?:average|avg|mean|median|typical) (?:number of |count of )?(?:likes"
        r"|views|comments|shares)\b",
    ),
    ("countries", r"\bhow many (?:different )?countries\b"),
    (
        "count",
        r"\b(?:share|percentage|proportion|fraction|percent) of\b|\bwhat % of\b"
        r"|\bhow many\b|\bnumber of\b(?!.*\b(?:increas|decreas|grow|chang|evolv|trend"
        r"|over time|ris(?:e|ing)|fall|drop))|\bcount(?:s|ing)?\b"
        r"|\bhow much (?:posts|content)\b"
        r"|\btotal (?:posts|number)\b",
    ),
    (
        "engagement",
        r"\b(?:average|avg|mean|median|typical|stats?|statistics|benchmarks?)\b"
        r"[\w\s-]{0,20}\bengag|\bengag\w*(?: rates?)? (?:stats?|statistics|benchmarks?"
        r"|by (?:source|platform|network|channel)|per (?:source|platform|network"
        r"|channel)|across)\b|\bhow (?:engaging|engaged)\b|\bengagement rates?\??$",
    ),
    (
        "ads",
        r"\bads?\b|\badvert|\bsponsor|\bpromoted\b|\bpaid (?:posts|content|campaigns?)\b"
        r"|\bcampaigns?\b|\bwho (?:runs|is running|pays for|paid for|places|buys) (?:them"
        r"|these|those|it|the ads?)\b",
    ),
    (
        "top",
        r"\b(?:show|list|give|find)?(?: me)? ?the most (?:negative|positive|critical)"
        r" (?:posts?|videos?|mentions?)\b"
        r"|\btop (?:\d+ |\w+ ){0,3}(?:posts?|videos?|content|mentions?|performing"
        r"|performers?|reels?|clips?)\b|^top(?: \d+| ten| five| three)?\W*$"
        r"|\btop (?:\d+|three|five|ten)\b(?! (?:\w+ )?(?:complaints|issues|problems|themes"
        r"|topics|questions|brands|hooks|ctas|authors|creators|influencers|countries"
        r"|languages|emotions|comments))|\btop by\b"
        r"|\b(?:shared|viewed|liked|commented|watched) the most\b|\blowest\b"
        r"|\bleast (?:viewed|liked|shared|commented|popular|engaging)\b"
        r"|\bmost (?:viewed|liked|commented|shared|engaging|engaged|popular|watched"
        r"|seen|discussed|viral|successful|interacted)\b|\bhighest\b|\bbest[- ]perform"
        r"|\bperformed best\b|\bpopular|\bviral\b|\bbiggest (?:posts|hits)\b"
        r"|\bmost (?:views|likes|comments|shares|engagement|reach|interactions)\b"
        r"|\b(?:posts?|videos?) (?:with|that got|getting) the most\b|\bstandout posts?\b",
    ),
    (
        "comments",
        r"\bcomment(?:er)?s? (?:say|said|saying|think|section|about)\b"
        r"|\bcommenters?\b|\bin the comments\b|\breplies\b|\bcomment sections?\b"
        r"|\bwhat (?:do|did|are) (?:the )?comments\b|\bcomments?\??$",
    ),
    (
        "emotions",
        r"\bemotion|\bangry\b|\banger\b|\bjoy|\bsad(?:ness)?\b|\bfear|\bafraid\b"
        r"|\bscared\b|\bsurprised?\b|\bdisgust",
    ),
    ("languages", r"\blanguages?\b|\bwhat language\b"),
    (
        "countries",
        r"\bcountr(?:y|ies)\b|\bgeograph|\bregions?\b|\blocations?\b"
        r"|\bwhere (?:are|do|is|were)\b.*\b(?:from|based|located|live|posting)\b",
    ),
    (
        "compare",
        r"\bcompar|\bversus\b|\bvs\.?\b|\bdiffer|\bhow (?:does|do) \w+ stack up\b"
        r"|\bwhich (?:source|platform|network|channel|dataset)s? (?:is|are|has|have)\b",
    ),
    (
        "sentiment",
        r"\breact(?:s|ing|ion|ions)?\b|\bsentiment|"
        r"\bfeel\b|\bfeelings?\b|\bmoods?\b|\btone\b|\bopinions?\b"
        r"|\bperce(?:ive|ption)|\breception\b|\bhow (?:positive|negative)\b"
        r"|\bpositive or negative\b|\bnegative or positive\b|\bhow (?:do|does) "
        r"(?:people|users|they|customers) (?:see|view|rate|feel)\b|\bvibe\b",
    ),
    (
        "trend",
        r"\bover time\b|\btrend|\bvolume\b|\bspikes?\b|\bpeaks?\b|\bbusiest\b"
        r"|\btimeline\b|\bgrow|\bshrink|\bdeclin|\bincreas|\bdecreas|\bchanged?\b"
        r"|\bevolv|\b(?:posts?|mentions?) (?:per|by|each|a) (?:day|week|month)\b"
        r"|\bquiet(?:est)?\b|\bactivity\b|\bwhen (?:did|were|was|do)\b"
        r"|\bwhich (?:day|week|month)\b|\b(?:day|week|month) (?:with|had) the most\b"
        r"|\b(?:daily|weekly|monthly)\b",
    ),
    (
        "complaints",
        r"\bcomplain|\bgripes?\b|\bmoan|\brants?\b|\bwhin|\bissues?\b|\bproblems?\b"
        r"|\bdislik|\bhat(?:e|es|ed)\b|\bcriti|\bfrustrat|\bannoy|\bpain ?points?\b"
        r"|\bdownsides?\b|\bdrawbacks?\b|\bconcerns?\b|\bgrievance|\bunhappy\b"
        r"|\bdissatisf|\bdisappoint|\bnegative (?:feedback|reviews?|comments?"
        r"|experiences?|opinions?|things|points)\b|\bwhat(?:'s| is) wrong\b"
        r"|\b(?:don'?t|do not|doesn'?t) (?:\w+ ){0,2}(?:like|love|enjoy)\b"
        r"|\bweakness|\bcons\b|\bnegatives\b",
    ),
    (
        "praise",
        r"\bprais|\bpositive (?:feedback|reviews?|comments?|experiences?|things|points)\b"
        r"|\bstrengths?\b|\bpros\b|\bgood (?:about|things|points)\b|\bpositives\b"
        r"|\bbest (?:things?|part|about)\b|\bfavou?rite|\bhappy (?:with|about)\b"
        r"|\bwhat works\b|\bcompliment|\bappreciat|\b(?:like|love|enjoy)s? (?:about|most)\b"
        r"|\bwhy (?:do|does|would) (?:\w+ ){0,2}(?:like|love|enjoy|prefer|buy)\b"
        r"|\bwhat (?:do|does) (?:people|users|customers|they|folks|fans) (?:like|love"
        r"|enjoy)\b|\bfans love\b",
    ),
    (
        "hooks",
        r"\bhooks?\b|\bopening lines?\b|\bopeners?\b|\bopenings?\b"
        r"|\bhow (?:do|does) (?:the )?(?:posts|videos|they|creators) (?:start|open|begin)\b",
    ),
    (
        "ctas",
        r"\bctas?\b|\bcalls?[- ]to[- ]actions?\b|\bask (?:\w+ ){0,2}to (?:do|buy|click"
        r"|follow|comment|share|subscribe|sign up|visit)\b",
    ),
    (
        "questions",
        r"\bquestions?\b|\bask(?:s|ing|ed)?\b|\bwonder(?:s|ing)?\b|\bcurious\b"
        r"|\bfaqs?\b",
    ),
    (
        "brands",
        r"\bbrands?\b|\bcompetitors?\b|\brivals?\b|\balternatives?\b|\bcompetition\b"
        r"|\bco-?mention|\bmentioned (?:alongside|together|with)\b",
    ),
    (
        "authors",
        r"\bauthors?\b|\bcreators?\b|\binfluencers?\b|\binfluential\b|\baccounts?\b"
        r"|\bvoices\b|\bposters?\b|\bwho\b(?! (?:use|uses|used|care|cares))",
    ),
    (
        "topics",
        r"\bthemes?\b|\btopics?\b|\baspects?\b|\bsubjects?\b|\btalk(?:ing|ed|s)? about\b"
        r"|\bsay(?:s|ing)?\b|\bsaid\b|\bdiscuss|\bconversation\b|\bbuzz\b|\bthink\b",
    ),
    (
        "posts",
        r"\bexamples?\b|\bquote|\bsamples?\b|\bexcerpts?\b|\b(?:show|list|find|give|pull"
        r"|get|see|display|read)\b(?: me| us)?(?: \w+){0,5} (?:posts?|videos?|mentions?)\b"
        r"|\b(?:posts?|videos?|mentions?) (?:about|that|which|mentioning|from|on|with)\b"
        r"|\blist posts\b|\bwhich (?:posts?|videos?)\b|\b(?:most recent|latest|newest)"
        r" (?:posts?|videos?|mentions?)\b",
    ),
    (
        "overview",
        r"\bsummar|\boverview\b|\btl;? ?dr\b|\bwhat(?:'?s| is| are) (?:going on|happening"
        r"|up)\b|\bkey (?:findings|insights|takeaways)\b|\binsights?\b|\bhighlights?\b"
        r"|\bstats?\b|\bstatistics\b|\bdescribe\b|\bwhat(?:'s| is) in\b|\bgist\b"
        r"|\brundown\b|\brecap\b"
        r"|\binteresting\b|\bnotable\b|\bsurpris|\bstand(?:s)? out\b"
        r"|\bsnapshot\b|\bstatus\b|\bhow are we doing\b"
        r"|\bwhat(?:'?s| is) new\b|\bany(?:thing)? new\b",
    ),
)

INTENTS = tuple(dict.fromkeys(name for name, _ in INTENT_RULES))
"""Every intent the planner knows, in rule order."""

METRIC_RULES: tuple[tuple[str, str], ...] = (
    ("engagement_rate", r"\bengagement[- ]rates?\b|\ber\b"),
    ("views", r"\bview|\bwatch|\bseen\b|\breach\b|\bimpressions?\b"),
    ("likes", r"\blikes\b|\bliked\b|\bhearts\b"),
    ("comments", r"\bcomment(?:s|ed)\b|\bdiscussed\b|\breplies\b"),
    ("shares", r"\bshares\b|\bshared\b|\breposts?\b"),
    ("engagement", r"\bengag|\binteract|\binfluen|\bbiggest\b|\bsuccessful\b"),
)
"""(metric, rule): the first that fires names the metric a ranking uses."""


def detect_language(text: str) -> str:
    """The supported language whose function words the text uses most (English on a tie).

    Example:
        >>> detect_language("Wie ist die Stimmung?")
        'de'
    """
    tokens = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower())
    if not tokens:
        return "en"
    scores = {
        language: sum(
            1 for t in tokens if t in _FUNCTION[language] or t in TRANSLATIONS.get(language, {})
        )
        for language in LANGUAGES
    }
    # Accented letters of a language tip close calls ("é" is French or Portuguese...).
    scores["es"] += 2 * len(re.findall(r"[¿¡ñ]", text))
    scores["de"] += 2 * len(re.findall(r"[äöüß]", text))
    scores["pt"] += 2 * len(re.findall(r"[ãõç]", text))
    # "inglês", "francês", "mês": the "ê" French also writes, at a Portuguese word's end;
    # "quantos", "são": words no other language writes
    scores["pt"] += 2 * len(re.findall(r"ês\b|\b(?:quantos|quantas|são)\b", text.lower()))
    scores["fr"] += 2 * len(re.findall(r"[èêàùœ]", text))
    scores["it"] += 2 * len(re.findall(r"\b(?:più|perché|qual è|quanti|quante)\b", text.lower()))
    best = max(LANGUAGES, key=lambda language: (scores[language], language == "en"))
    return best if scores[best] > scores["en"] else "en"
