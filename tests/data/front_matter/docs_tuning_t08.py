"""Tuning set, document t08: preprint (en), Markdown with YAML.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T08_TITLE = "Scheduling Field Surveys with Bandit Algorithms: A Case Study in Seabird Monitoring"

T08_TEXT = """---
title: "Scheduling Field Surveys with Bandit Algorithms: A Case Study in Seabird Monitoring"
author:
  - Ingrid Solheim-Barros
  - Tomás Echeverría Lagos
  - Keiko Nakamura
date: 2023-11-09
keywords: [multi-armed bandits, ecological monitoring, survey design]
bibliography: refs.bib
---

**arXiv:2311.04467v1 [cs.LG] 9 Nov 2023**

*Preprint. Under review.*

# Abstract

Monitoring programmes for colonial seabirds can afford to visit only a few colonies each season, and the choice
of which colonies to visit is usually fixed years in advance. We frame the seasonal choice of survey sites as a
multi-armed bandit problem in which each visit reveals information about a colony's breeding success. Using
fifteen years of counts from 38 colonies on a northern Atlantic coastline, we show in retrospective simulation
that a Thompson-sampling schedule detects colony declines on average 2.3 seasons earlier than the fixed rotation.
Bandit scheduling is therefore a practical way to spend a small survey budget where change is most likely.

# 1 Introduction

Long-term seabird monitoring relies on repeated counts at the same colonies, but boat time, weather windows and
trained observers limit how many sites can be visited. Most programmes use a fixed rotation that visits each
colony every few years, regardless of what earlier counts revealed.

The objective of this work is to test whether an adaptive schedule, which chooses the next season's colonies
from the counts collected so far, detects population declines sooner than a fixed rotation with the same budget.

# 2 Methods

We used annual counts of apparently occupied nests from 38 colonies surveyed between 2007 and 2021 by a regional
monitoring programme. Each season the scheduler could visit 8 colonies. A colony's "reward" was the posterior
probability that its nest count had declined by more than 20% since the last visit, estimated with a
Poisson state-space model.

We compared three schedules in retrospective simulation: the fixed rotation actually used, an upper-confidence-
bound (UCB) schedule and a Thompson-sampling schedule. Each schedule was replayed 500 times on the historical
counts, and we recorded the delay between the onset of a decline and its detection.

# 3 Results

The Thompson-sampling schedule detected the 11 declines present in the record after a mean delay of 1.4 seasons,
against 3.7 seasons for the fixed rotation and 1.9 for UCB. It visited stable colonies less often, but every
colony was still visited at least once every five seasons.

| Schedule | Mean detection delay (seasons) | Declines missed |
|---|---|---|
| Fixed rotation | 3.7 | 2 |
| UCB | 1.9 | 1 |
| Thompson sampling | 1.4 | 0 |

# 4 Conclusions

Adaptive scheduling with bandit algorithms detects seabird colony declines earlier than fixed rotations without
increasing the survey budget. Programmes adopting it should keep a minimum revisit interval so that slow changes
at rarely visited colonies are not missed.

# References

Echeverría Lagos, T., & Holm, A. (2021). State-space models for colony counts. *Marine Ornithology Methods*,
12(3), 201–219.

Nakamura, K. (2020). Thompson sampling under survey constraints. In *Proceedings of the Workshop on Sequential
Decisions in Ecology* (pp. 44–51).

Solheim-Barros, I. (2019). *Seabird colonies of the outer coast: a fifteen-year atlas*. Northern Shore Press.
"""

T08 = {
    "id": "t08",
    "file": "t08_preprint_en.md",
    "kind": "preprint",
    "language": "en",
    "format": "md",
    "title": T08_TITLE,
    "authors": ["Ingrid Solheim-Barros", "Tomás Echeverría Lagos", "Keiko Nakamura"],
    "year": 2023,
    "metadata_right": True,
    "traps": [
        "yaml_front_matter",
        "yaml_title_with_colon",
        "first_heading_not_title",
        "arxiv_stamp",
        "preprint_line",
        "hyphenated_name",
        "accented_names",
        "subtitle_after_colon",
    ],
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "text": T08_TEXT,
}

DOCS = [T08]
