"""Held-out evaluation cases: written before the planner was built or tuned, never edited
after. Their pass rate is reported separately from the development cases.

The dataset they run on is an analysed "oat milk" dataset over the five sources (brands
such as Oatly, Alpro, Silk; aspects such as price, foam, texture; a few ads; comments).
"""

from __future__ import annotations

from assistant_case import Case, q

CASES: tuple[Case, ...] = (
    # --- overview ---
    q("Give me an overview of this dataset", "overview"),
    q("summary pls", "overview", style="terse"),
    q("Could you please summarise what's in here?", "overview", style="polite"),
    q("Summarize the conversation on TikTok", "overview", sources={"tiktok"}),
    q("tl;dr?", "overview", style="terse"),
    q("Wat is going on in this data, giv me a quick sumary", "overview", style="typo"),
    # --- sentiment ---
    q("How do people feel about oat milk?", "sentiment"),
    q("What's the overall sentiment?", "sentiment"),
    q("sentiment split", "sentiment", style="terse"),
    q("Break down sentiment by platform", "sentiment", group_by="source", style="imperative"),
    q("How has sentiment changed over time?", "sentiment", group_by="time"),
    q("Is the mood on Reddit mostly positive or negative?", "sentiment", sources={"reddit"}),
    q(
        "How positive is the conversation on instagram over the last 30 days?",
        "sentiment",
        sources={"instagram"},
        window_days=30,
    ),
    q(
        "Would you kindly tell me how sentiment is distributed across sources?",
        "sentiment",
        group_by="source",
        style="polite",
    ),
    q("sentimnet by week", "sentiment", group_by="week", style="typo"),
    # --- complaints ---
    q("What do people complain about?", "complaints"),
    q("What are the biggest pain points customers mention?", "complaints"),
    q("main gripes?", "complaints", style="terse"),
    q("What do people complain about regarding the price?", "complaints", terms={"price"}),
    q(
        "List the complaints about foam on TikTok",
        "complaints",
        terms={"foam"},
        sources={"tiktok"},
        style="imperative",
    ),
    q("What do ppl hate about it", "complaints", style="typo"),
    q("Any negative feedback about the packaging?", "complaints", terms={"packaging"}),
    q(
        "I'd love to understand the main frustrations people have, if that's possible.",
        "complaints",
        style="polite",
    ),
    # --- praise ---
    q("Why do people like oat milk?", "praise"),
    q("What do fans love most about it?", "praise"),
    q("What's the praise about the texture?", "praise", terms={"texture"}),
    q("positives?", "praise", style="terse"),
    q("Tell me what customers appreciate", "praise", style="imperative"),
    # --- topics ---
    q("What are the main topics?", "topics"),
    q("What themes come up in the posts?", "topics"),
    q("What are people talking about?", "topics"),
    q("What do people say about the sweetness?", "topics", terms={"sweetness"}),
    q("key themes on youtube", "topics", sources={"youtube"}, style="terse"),
    q("Whta are teh main topics", "topics", style="typo"),
    # --- top posts ---
    q("What are the top 5 posts by views?", "top", limit=5, metric="views"),
    q("Most liked posts", "top", metric="likes", style="terse"),
    q(
        "Show me the 3 most shared videos on TikTok",
        "top",
        limit=3,
        metric="shares",
        sources={"tiktok"},
        style="imperative",
    ),
    q("Which posts got the most comments?", "top", metric="comments"),
    q("Which posts have the highest engagement rate?", "top", metric="engagement_rate"),
    q("top ten posts", "top", limit=10, style="terse"),
    q("What were the best performing posts last month?", "top", window_days=30),
    # --- list / quote posts ---
    q(
        "Show me three negative posts from Reddit",
        "posts",
        limit=3,
        sentiment="negative",
        sources={"reddit"},
        style="imperative",
    ),
    q("Quote a few posts that mention Alpro", "posts", brands={"Alpro"}, style="imperative"),
    q(
        "Can you give me some examples of posts about the foam?",
        "posts",
        terms={"foam"},
        style="polite",
    ),
    q("List posts about price", "posts", terms={"price"}, style="imperative"),
    q(
        "show 2 positive instagram posts",
        "posts",
        limit=2,
        sentiment="positive",
        sources={"instagram"},
        style="terse",
    ),
    # --- counts ---
    q("How many posts are negative? Give the exact count.", "count", sentiment="negative"),
    q("How many posts are there?", "count"),
    q("How many posts mention price?", "count", terms={"price"}),
    q("number of tiktok posts", "count", sources={"tiktok"}, style="terse"),
    q("How many positive posts on YouTube?", "count", sentiment="positive", sources={"youtube"}),
    q("How many ads are in the dataset?", "count", content_type="ad"),
    q("exactly how many neutral posts r there", "count", sentiment="neutral", style="typo"),
    # --- authors ---
    q("Who are the top authors?", "authors"),
    q("Who are the most influential creators?", "authors"),
    q("Which creators get the most engagement?", "authors", metric="engagement"),
    q("who posts the most on reddit", "authors", sources={"reddit"}, style="terse"),
    q("List the biggest influencers talking about this", "authors", style="imperative"),
    # --- comparison ---
    q("Compare Reddit and TikTok", "compare", sources={"reddit", "tiktok"}),
    q("How does YouTube differ from Instagram?", "compare", sources={"youtube", "instagram"}),
    q("reddit vs tiktok", "compare", sources={"reddit", "tiktok"}, style="terse"),
    q("Compare all the platforms for me please", "compare", style="polite"),
    # --- volume / trend ---
    q("How has the volume changed over time?", "trend"),
    q("Were there any spikes in posting?", "trend"),
    q("Posts per week", "trend", group_by="week", style="terse"),
    q("When was the busiest day?", "trend", group_by="day"),
    q("Is the conversation growing or shrinking?", "trend"),
    # --- questions people ask ---
    q("What questions do people ask?", "questions"),
    q("What are people curious about?", "questions"),
    q("common questions about price", "questions", terms={"price"}, style="terse"),
    # --- hooks / CTAs ---
    q("Which hooks work best?", "hooks"),
    q("How do the videos open?", "hooks"),
    q("What calls to action do creators use?", "ctas"),
    q("CTAs?", "ctas", style="terse"),
    # --- brands ---
    q("Which brands are mentioned alongside oat milk?", "brands"),
    q("Which competitors come up?", "brands"),
    q("What brands get mentioned together with Alpro?", "brands", brands={"Alpro"}),
    q("brands on youtube", "brands", sources={"youtube"}, style="terse"),
    # --- ads ---
    q("Are there any ads? Who runs them?", "ads"),
    q("Which advertisers are running ads?", "ads"),
    q("What do the sponsored posts say?", "ads"),
    q("ads on linkedin", "ads", sources={"linkedin"}, style="terse"),
    # --- comments ---
    q("What do commenters say?", "comments"),
    q("What are people saying in the comments?", "comments"),
    q("Summarize the replies under the TikTok posts", "comments", sources={"tiktok"}),
    # --- emotions / languages / countries ---
    q("What emotions come through in the posts?", "emotions"),
    q("Are people angry?", "emotions"),
    q("Which languages are the posts in?", "languages"),
    q("Where are the posters based?", "countries"),
    q("Which countries do posts come from?", "countries"),
    # --- engagement statistics ---
    q("What's the average engagement rate by source?", "engagement", group_by="source"),
    q("What is the median engagement rate?", "engagement"),
    q("engagement stats per platform", "engagement", group_by="source", style="terse"),
    # --- recommendations / report ---
    q("What should we do?", "recommendations"),
    q("Based on this, what would you recommend for our marketing team?", "recommendations"),
    q("Write a short report for my boss.", "report"),
    q("Put together a brief report on the findings", "report", style="imperative"),
    # --- multi-part ---
    q(
        "What do people complain about most, and how does sentiment split by source?",
        "complaints",
        "sentiment",
        per=({}, {"group_by": "source"}),
        style="multi",
    ),
    q(
        "How many posts are from TikTok and what are the top 3 by likes?",
        "count",
        "top",
        per=({"sources": {"tiktok"}}, {"limit": 3, "metric": "likes"}),
        style="multi",
    ),
    q(
        "Give me the sentiment split. Also, which brands are mentioned?",
        "sentiment",
        "brands",
        style="multi",
    ),
    q(
        "What are the main topics, what do people praise, and what do they complain about?",
        "topics",
        "praise",
        "complaints",
        style="multi",
    ),
    q("Which languages appear? And which countries?", "languages", "countries", style="multi"),
    # --- follow-ups ---
    q(
        "And on TikTok?",
        "sentiment",
        after="How does sentiment split?",
        sources={"tiktok"},
        style="follow",
    ),
    q(
        "what about youtube",
        "complaints",
        after="What do people complain about?",
        sources={"youtube"},
        style="follow",
    ),
    q(
        "And only the negative ones?",
        "posts",
        after="Show me 5 posts from reddit",
        sentiment="negative",
        sources={"reddit"},
        style="follow",
    ),
    q(
        "Same for last week",
        "top",
        after="Top posts by views",
        metric="views",
        window_days=7,
        style="follow",
    ),
    # --- other languages ---
    q("Quel est le sentiment général ?", "sentiment", style="fr"),
    q("De quoi se plaignent les gens ?", "complaints", style="fr"),
    q("Quels sont les sujets principaux ?", "topics", style="fr"),
    q("Fais-moi un résumé", "overview", style="fr"),
    q("Quelles sont les publications les plus populaires ?", "top", style="fr"),
    q("¿De qué se quejan los usuarios?", "complaints", style="es"),
    q("¿Cuál es el sentimiento en TikTok?", "sentiment", sources={"tiktok"}, style="es"),
    q("Dame un resumen de los datos", "overview", style="es"),
    q("¿Cuáles son los temas principales?", "topics", style="es"),
    q("Worüber beschweren sich die Leute?", "complaints", style="de"),
    q("Wie ist die Stimmung?", "sentiment", style="de"),
    q("Was sind die beliebtesten Beiträge?", "top", style="de"),
    q("Gib mir eine Zusammenfassung", "overview", style="de"),
    q("Quais são as principais reclamações?", "complaints", style="pt"),
    q("Qual é o sentimento geral?", "sentiment", style="pt"),
    q("Quais são os principais temas?", "topics", style="pt"),
    q("Quais são as publicações mais populares?", "top", style="pt"),
    # --- absent data ---
    q("What do people say about almond milk?", "topics", missing={"almond"}, style="absent"),
    q("Any complaints about Danone?", "complaints", missing={"danone"}, style="absent"),
    q("Show me posts from 2019", "posts", since="2019", style="absent"),
    q('How many posts mention "cold brew"?', "count", missing={"cold brew"}, style="absent"),
    # --- nothing understood ---
    q("asdf qwerty", "overview", style="unknown"),
    q("🙂🙂🙂", "overview", style="unknown"),
)
