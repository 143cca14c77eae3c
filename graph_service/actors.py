"""One spelling of who someone is: the id a name becomes wherever it names an actor.

Speakers, the people a statement reports ("Ann said that…"), the families evidence rows name for
an actor, and principals all go through `actor_key`, so "Ann", "ann", "ANN" and "Ａｎｎ" are one
actor and count as one independent source. Pure.
"""

from __future__ import annotations

import re
import unicodedata

# Letters and digits of any script; an apostrophe joins ("O'Brien" is one word), anything else separates.
_WORD = re.compile(r"[^\W_]+")
_APOSTROPHES = str.maketrans("", "", "'\u2019\u02bc")


def actor_key(name: str) -> str:
    """The actor id of a name: NFKC, Unicode case folding, then its words joined by "-", each segment
    of a "/"-path ("ann/boss": the boss Ann spoke of) on its own. "" for a name with no letter or digit.

    "Bob  Smith" → "bob-smith"; "José" → "josé"; "Straße" → "strasse"; "O'Brien" → "obrien".
    """
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_APOSTROPHES)
    segments = ["-".join(_WORD.findall(segment)) for segment in folded.split("/")]
    return "/".join(segments) if all(segments) else "-".join(s for s in segments if s)
