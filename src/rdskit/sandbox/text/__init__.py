"""The sandbox's text tools: the deterministic corpus and the lightweight language work on it.

- :mod:`.corpus`: the seeded generator of posts, authors, brands and comments;
- :mod:`.enrichment`: sentiment, emotions, entities, language, the per-post analyses;
- :mod:`.extractor`: the custom-parameter extractor (instructions → rule → value), with the
  stemmer and stop words it shares with clustering;
- :mod:`.clustering`: the pattern clusters.

None of them touches the database or HTTP: the backend calls them with plain values.
"""
