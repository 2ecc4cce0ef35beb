"""The sandbox's synthetic world: the deterministic corpus and the language work on it.

- :mod:`.corpus`: the seeded generator of posts, authors, brands and comments;
- :mod:`.enrichment`: sentiment, emotions, entities, language, the per-post analyses;
- :mod:`.lexicons`: the sentiment lexicons of non-English posts and a language guess;
- :mod:`.extractor`: the custom-parameter extractor (instructions → rule → value), with the
  stemmer and stop words it shares with clustering;
- :mod:`.clustering`: the pattern clusters;
- :mod:`.profiles`: the audience profiles of a dataset's authors and commenters;
- :mod:`.preview_samples`: what a research preview of a search or of profiles finds.

None of them touches the database or HTTP: the backend calls them with plain values.
"""
