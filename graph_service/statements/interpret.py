"""The deterministic interpreter: a statement becomes one assertion per claim (SPEC 3.5).

Each assertion records who stands behind the claim, how it was put (stance, certainty, modality,
negation, reported or quoted speech, hypothetical) and how sure the interpreter is of its own
reading. Only factual assertions carry an evidence spec. Nothing here guesses: a construction the
rules do not recognise, or a remark that may be sarcastic, is kept with a low interpretation
confidence and a note, and yields no evidence. The same inputs always give the same output.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from graph_service.actors import actor_key
from graph_service.errors import UserError
from graph_service.statements import lexicon as lx
from graph_service.statements.assertion import AssertionDraft, EvidenceSpec
from graph_service.statements.text import (
    clean,
    contains_run,
    proposition_of,
    split_clauses,
    tokens,
    without_negation,
)


@dataclass(slots=True)
class _Reading:
    """A reading under construction."""

    actor: str
    words: list[str] = field(default_factory=list)
    certainties: list[float] = field(default_factory=list)
    modality: str = lx.ASSERT
    stance: str = lx.FOR
    reported: bool = False
    quoted: bool = False
    sarcasm: bool = False
    confidence: float = lx.CLEAR
    notes: list[str] = field(default_factory=list)

    def conversational(self, modality: str, note: str) -> _Reading:
        self.modality, self.stance = modality, lx.NONE
        self.notes.append(note)
        return self

    def hedge(self, certainty: float, modality: str, stance: str) -> None:
        self.certainties.append(certainty)
        if modality in (lx.DOUBT_MODALITY, lx.DENIAL) or self.modality == lx.ASSERT:
            self.modality = modality
        if stance == lx.AGAINST:
            self.stance = lx.FOR if self.stance == lx.AGAINST else lx.AGAINST


# ---- patterns ------------------------------------------------------------------------------------

_NAME: Final = r"[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}"
_DETERMINED: Final = (
    r"(?i:(?:my|our|the|your|his|her|their)\s+[a-z]+|a\s+friend|a\s+colleague"
    r"|someone|somebody|everyone|everybody|people|they|he|she|it|we|i)"
)
_VERBS: Final = "|".join(sorted(lx.REPORT_VERBS, key=lambda v: (-len(v), v)))
_OBJECT: Final = r"(?:\s+(?:me|us|him|her|them|everyone))?"
_QUOTED_AFTER: Final = re.compile(
    rf'^(?P<who>{_DETERMINED}|{_NAME})\s+(?P<verb>{_VERBS}){_OBJECT}\s*[,:]?\s*"(?P<inner>[^"]+)"$'
)
_QUOTED_BEFORE: Final = re.compile(
    rf'^"(?P<inner>[^"]+)"\s*,?\s*(?P<who>{_DETERMINED}|{_NAME})\s+(?P<verb>{_VERBS})$'
)
_QUOTED_INVERTED: Final = re.compile(rf'^"(?P<inner>[^"]+)"\s*,?\s*(?P<verb>{_VERBS})\s+(?P<who>{_NAME})$')
_INDIRECT: Final = re.compile(
    rf"^(?P<who>{_DETERMINED}|{_NAME})\s+(?P<verb>{_VERBS}){_OBJECT}\s*[,:]?\s+(?:that\s+)?(?P<inner>.+)$"
)
_ACCORDING: Final = re.compile(rf"^(?i:according\s+to)\s+(?P<who>{_DETERMINED}|{_NAME})\s*,\s*(?P<inner>.+)$")
_DISCOURSE: Final = re.compile(r"^(?P<marker>[A-Za-z]+)\s*,\s*(?P<rest>.+)$")
_END_MARKS: Final = " .!?;:"


@functools.cache
def _lead(phrase: str) -> re.Pattern[str]:
    words = r"[\s,]+".join(re.escape(w) for w in phrase.split())
    return re.compile(rf"^[\s,]*{words}(?![\w'])[\s,:;.!-]*", re.IGNORECASE)


@functools.cache
def _tail(phrase: str) -> re.Pattern[str]:
    words = r"[\s,]+".join(re.escape(w) for w in phrase.split())
    # A closing marker must be set off by punctuation ("…, yeah right", "… not!"), never simply
    # end the sentence ("it is not").
    sep = r"\s*" if phrase.startswith("/") else r"(?:[,.…-]+\s*|\s+(?=\S+!))"
    return re.compile(rf"{sep}(?<![\w']){words}\W*$", re.IGNORECASE)


def strip_lead(body: str, phrase: str) -> str | None:
    """The rest of `body` after the opening `phrase` (any case, commas allowed), or None."""
    match = _lead(phrase).match(body)
    return None if match is None else body[match.end() :].strip()


def _strip_complementiser(body: str) -> str:
    for word in ("that", "whether", "if"):
        rest = strip_lead(body, word)
        if rest:
            return rest
    return body


def _strip_end(body: str) -> str:
    return body.rstrip(_END_MARKS)


def actor_id(who: str, relayer: str) -> str | None:
    """The actor a reporting phrase names, or None for an unnamed source.

    "Bob Smith" → "bob-smith"; "my boss" → "<relayer>/boss"; "the doctor" → "doctor";
    first person ("I", "we") → the relayer themselves. Names are spelt by graph_service.actors.
    """
    words = tokens(who)
    phrase = " ".join(words)
    if phrase in lx.FIRST_PERSON:
        return relayer
    if phrase in lx.UNNAMED_SOURCES or not words:
        return None
    if words[0] in ("his", "her", "their", "your"):
        return None
    if words[0] in ("my", "our"):
        return f"{relayer}/{actor_key(' '.join(words[1:]))}"
    if words[0] == "the":
        words = words[1:]
    return actor_key(" ".join(words)) or None


# ---- reading one clause --------------------------------------------------------------------------


def _read(text: str, actor: str, depth: int) -> _Reading:
    """Read one clause for `actor` (the speaker, or whoever a report is attributed to)."""
    body = clean(text)
    marker = None
    for opener in lx.SARCASM_OPENERS:
        rest = strip_lead(body, opener)
        if rest is not None:
            body, marker = rest, opener
            break
    else:
        for closer in lx.SARCASM_CLOSERS:
            match = _tail(closer).search(body)
            if match is not None:
                body, marker = body[: match.start()].strip(), closer
                break
    reading = _read_body(body, actor, depth)
    if marker is not None:
        reading.sarcasm = True
        reading.stance = lx.NONE
        reading.confidence = min(reading.confidence, lx.SARCASM)
        reading.notes.append(f'possible sarcasm ("{marker}"): the literal reading is recorded, not trusted')
    return reading


def _read_body(body: str, actor: str, depth: int) -> _Reading:
    r = _Reading(actor=actor)
    while (match := _DISCOURSE.match(body)) and match["marker"].lower() in lx.DISCOURSE_MARKERS:
        body = match["rest"]
    asked = body.rstrip().endswith("?")
    stripped = _strip_end(body)
    if not tokens(stripped):
        return _unrecognised(r, "nothing but punctuation")

    for pattern in (_QUOTED_AFTER, _QUOTED_BEFORE, _QUOTED_INVERTED):
        match = pattern.match(stripped)
        if match is not None:
            return _reported(r, match["who"], match["verb"], match["inner"], depth, quoted=True, asked=asked)

    for opener in lx.REQUEST_OPENERS:
        rest = strip_lead(stripped, opener)
        if rest is not None:
            r.words = tokens(rest)
            return r.conversational(lx.REQUEST, f'a request ("{opener}"): asks for an action')
    if tokens(stripped)[-1:] == ["please"]:
        r.words = tokens(stripped)[:-1]
        return r.conversational(lx.REQUEST, 'a request ("please"): asks for an action')

    for opener in lx.HYPOTHETICAL_OPENERS:
        rest = strip_lead(stripped, opener)
        if rest is not None:
            r.words = tokens(_strip_complementiser(rest))
            note = f'hypothetical ("{opener}"): supposed, not asserted'
            if asked or opener == "what if":
                note += "; asked as a question"
            return r.conversational(lx.HYPOTHETICAL, note)

    if asked:
        r.words = tokens(stripped)
        return r.conversational(lx.QUESTION, "a question: asks, asserts nothing")
    wonder = strip_lead(stripped, "i wonder")
    if wonder is not None:
        r.words = tokens(_strip_complementiser(wonder))
        return r.conversational(lx.QUESTION, 'a question ("I wonder"): asks, asserts nothing')

    words = tokens(stripped)
    if words and (words[0] in lx.IMPERATIVE_VERBS or words[:2] == ["do", "not"]):
        r.words = words
        return r.conversational(lx.IMPERATIVE, f'an imperative ("{words[0]}"): asks for an action')

    for pattern in (_INDIRECT, _ACCORDING):
        match = pattern.match(stripped)
        if match is not None and tokens(match["who"])[:1] not in (["nobody"], ["no"], ["none"]):
            verb = match.groupdict().get("verb") or "said"
            return _reported(r, match["who"], verb, match["inner"], depth, quoted=False, asked=False)

    for opener in lx.HEARSAY_OPENERS:
        rest = strip_lead(stripped, opener)
        if rest is not None:
            inner = _read(_strip_complementiser(rest), actor, depth + 1)
            inner.reported = True
            inner.confidence *= lx.PARAPHRASE_FACTOR
            inner.notes.append(f'hearsay ("{opener}"): second-hand from an unnamed source, kept with {actor}')
            return inner

    return _read_plain(r, stripped)


def _read_plain(r: _Reading, body: str) -> _Reading:
    """A declarative clause: first-person frames, hedges, conditionals; then the verb check."""
    found = True
    while found:
        found = False
        for opener, certainty, modality, stance in lx.FRAMES:
            rest = strip_lead(body, opener)
            if rest:
                body = _strip_complementiser(rest)
                r.hedge(certainty, modality, stance)
                r.notes.append(f'framed by "{opener}"')
                found = True
                break
    words = tokens(body)
    if any(w in lx.CONDITIONAL_WORDS for w in words) or any(
        pair in itertools.pairwise(words) for pair in lx.COUNTERFACTUAL_PAIRS
    ):
        r.words = words
        r.notes.append("conditional: the claim depends on a supposition")
        r.stance, r.modality = lx.NONE, lx.HYPOTHETICAL
        return r
    kept: list[str] = []
    for word in words:
        if word in lx.ADVERBS:
            r.hedge(lx.ADVERBS[word], lx.HEDGE if lx.ADVERBS[word] < lx.PLAIN else lx.ASSERT, lx.FOR)
            r.notes.append(f'qualified by "{word}"')
        else:
            kept.append(word)
    for i, word in enumerate(kept):
        if word in ("might", "may") or (word == "could" and kept[i + 1 : i + 2] in (["be"], ["have"])):
            r.hedge(lx.POSSIBLE, lx.HEDGE, lx.FOR)
            r.notes.append(f'modal "{word}": possibility, kept in the proposition')
            break
    r.words = kept
    if not _has_finite_verb(kept):
        return _unrecognised(r, "no clause with a verb")
    return r


def _unrecognised(r: _Reading, why: str) -> _Reading:
    r.stance, r.modality = lx.NONE, lx.UNRECOGNISED
    r.confidence = min(r.confidence, lx.UNKNOWN)
    r.notes.append(f"construction not recognised ({why}): recorded literally, not read")
    return r


def _has_finite_verb(words: list[str]) -> bool:
    if len(words) < 2:
        return False
    if words[0] in lx.SUBJECT_PRONOUNS or any(w in lx.FINITE_VERBS for w in words):
        return True
    if any(w.endswith(lx.CONTRACTION_SUFFIXES) for w in words):
        return True
    # A past ("-ed") or third-person ("-s") form after the first word.
    return any(
        len(w) > 3 and (w.endswith("ed") or (w.endswith("s") and not w.endswith("ss"))) for w in words[1:]
    )


def _reported(
    outer: _Reading, who: str, verb: str, inner_text: str, depth: int, *, quoted: bool, asked: bool
) -> _Reading:
    """Someone's words relayed by `outer.actor`: read them as that person's, then weigh second-hand."""
    relayer = outer.actor
    named = actor_id(who, relayer)
    own = named == relayer
    source = relayer if named is None else named
    inner_text = clean(inner_text)
    instruction = verb in ("told", "tells", "asked", "asks") and strip_lead(inner_text, "to") is not None
    if depth >= lx.MAX_REPORT_DEPTH:
        r = _Reading(actor=source, words=tokens(inner_text), reported=not own, quoted=quoted)
        r.stance, r.modality, r.confidence = lx.NONE, lx.UNRECOGNISED, lx.UNKNOWN
        r.notes.append("reports nested too deeply to follow: recorded literally, not read")
        return r
    certainty, modality, stance = lx.REPORT_VERBS[verb]
    if instruction:
        inner = _Reading(actor=source, words=tokens(strip_lead(inner_text, "to") or ""))
        inner.conversational(lx.REQUEST, f'a relayed request ("{verb} … to"): asks for an action')
    elif modality == lx.QUESTION:
        inner = _Reading(actor=source, words=tokens(_strip_complementiser(_strip_end(inner_text))))
        inner.conversational(lx.QUESTION, f'a relayed question ("{verb}"): asks, asserts nothing')
    else:
        inner = _read(inner_text, source, depth + 1)
    inner.quoted = inner.quoted or quoted
    if not instruction and modality != lx.QUESTION and inner.modality in lx.FACTUAL_MODALITIES:
        inner.hedge(certainty, modality, stance)
        if stance == lx.AGAINST and inner.stance == lx.FOR:
            inner.confidence *= lx.DOUBLE_NEGATION_FACTOR
            inner.notes.append(f'"{verb}" of a doubt: read as support, with less confidence')
    if asked:
        inner.conversational(lx.QUESTION, "asked about what was said: a question, asserts nothing")
    if own:
        inner.notes.append(f'the speaker relaying their own words ("{verb}")')
        return inner
    inner.reported = True
    if named is None:
        inner.notes.append(f'reported by an unnamed source ("{clean(who)}"): family of {relayer}')
    else:
        kind = "quoted" if quoted else "reported"
        inner.notes.append(f'{kind} speech ("{verb}"): attributed to {named}, relayed by {relayer}')
    if not quoted:
        inner.confidence *= lx.PARAPHRASE_FACTOR
        inner.notes.append("indirect speech: the relayer's paraphrase")
    return inner


# ---- the public entry points ---------------------------------------------------------------------


def _build(index: int, claim: str, speaker: str, r: _Reading, source: str) -> AssertionDraft:
    words = r.words or tokens(claim)
    negations = sum(1 for w in words if w in lx.NEGATION_WORDS or w.endswith("n't"))
    notes = list(r.notes)
    confidence = r.confidence
    if negations >= 2:
        confidence *= lx.DOUBLE_NEGATION_FACTOR
        notes.append(f"{negations} negations: polarity read by parity")
    confidence = round(confidence, lx.WEIGHT_DECIMALS)
    factual = (
        r.modality in lx.FACTUAL_MODALITIES
        and not r.sarcasm
        and r.stance in (lx.FOR, lx.AGAINST)
        and confidence >= lx.MIN_FACTUAL_CONFIDENCE
    )
    if r.modality in lx.FACTUAL_MODALITIES and not factual and not r.sarcasm:
        notes.append("interpretation too uncertain to count as evidence")
    certainty = min(r.certainties) if r.certainties else lx.PLAIN
    if r.modality not in lx.FACTUAL_MODALITIES:
        certainty = 0.0
    proposition = proposition_of(words)
    evidence = None
    if factual:
        hand = lx.SECOND_HAND_FACTOR if r.reported else 1.0
        weight = round(lx.ASSERTION_BASE_WEIGHT * certainty * hand * confidence, lx.WEIGHT_DECIMALS)
        evidence = EvidenceSpec(proposition=proposition, direction=r.stance, family=r.actor, weight=weight)
    return AssertionDraft(
        index=index,
        claim=claim,
        proposition=proposition,
        core=proposition_of(without_negation(words)),
        actor=r.actor,
        speaker=speaker,
        stance=r.stance,
        certainty=certainty,
        modality=r.modality,
        negated=negations % 2 == 1,
        reported=r.reported,
        quoted=r.quoted,
        hypothetical=r.modality == lx.HYPOTHETICAL,
        sarcasm=r.sarcasm,
        interpretation_confidence=confidence,
        notes=tuple(notes),
        factual=factual,
        source=source,
        evidence=evidence,
    )


def check_text(text: Any, field: str = "text") -> str:
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"{field} must be a non-empty string", field=field)
    if len(text) > lx.MAX_TEXT_CHARS:
        raise UserError(f"{field} is {len(text)} characters; at most {lx.MAX_TEXT_CHARS}", field=field)
    return text


def extra_claim_texts(extra_claims: Any) -> tuple[tuple[str, bool], ...]:
    """A caller's extra claims as (text, had other keys), cleaned, without duplicates, sorted.

    A claim is a string or a map with "text"; any other key (a caller's stance or confidence)
    is ignored, and the assertion notes that it was.
    """
    if isinstance(extra_claims, (str, bytes, Mapping)) or not isinstance(extra_claims, Iterable):
        raise UserError("extra_claims must be a list of claims", field="extra_claims")
    found: dict[str, tuple[str, bool]] = {}
    for i, raw in enumerate(extra_claims):
        where = f"extra_claims[{i}]"
        if i >= lx.MAX_EXTRA_CLAIMS:
            raise UserError(f"at most {lx.MAX_EXTRA_CLAIMS} extra claims are accepted", field="extra_claims")
        extra_keys = False
        if isinstance(raw, Mapping):
            extra_keys = any(k != "text" for k in raw)
            raw = raw.get("text")
        text = clean(check_text(raw, where))
        key = " ".join(tokens(text)) or text.lower()
        previous = found.get(key)
        if previous is not None:
            text, extra_keys = min(previous[0], text), previous[1] or extra_keys
        found[key] = (text, extra_keys)
    return tuple(sorted(found.values()))


def interpret(text: str, speaker: str, extra_claims: Iterable[Any] = ()) -> tuple[AssertionDraft, ...]:
    """One assertion per claim of `text`, said by `speaker`, then one per extra claim.

    Extra claims (from a model, say) are sorted and de-duplicated, so their order never matters;
    one whose proposition a message claim already has is that claim, not a second one. Their
    stance and confidence are always this interpreter's; an extra claim whose words are not in
    the message is read with less confidence. Raises UserError for empty or oversized input.
    """
    check_text(text)
    if not isinstance(speaker, str) or not speaker.strip():
        raise UserError("speaker must be a non-empty string", field="speaker")
    actor = actor_key(speaker)  # the speaker as a source: one spelling of them (graph_service.actors)
    if not actor:
        raise UserError("speaker must name someone (a letter or digit)", field="speaker")
    extras = extra_claim_texts(extra_claims)
    out: list[AssertionDraft] = []
    for claim in split_clauses(text):
        out.append(_build(len(out), claim, speaker, _read(claim, actor, 0), "message"))
    message_words = tokens(text)
    known = {a.proposition for a in out}
    for claim, had_keys in extras:
        reading = _read(claim, actor, 0)
        proposition = proposition_of(reading.words or tokens(claim))
        if proposition in known:
            continue
        known.add(proposition)
        reading.notes.append("claim added by the caller; stance and confidence are the interpreter's")
        if had_keys:
            reading.notes.append("the caller's other fields (stance, confidence, ...) were ignored")
        if not contains_run(message_words, tokens(claim)):
            reading.confidence *= lx.NOT_VERBATIM_FACTOR
            reading.notes.append("the claim's words are not in the message")
        out.append(_build(len(out), claim, speaker, reading, "extra"))
    return tuple(out)


def is_conversational(assertions: Iterable[AssertionDraft]) -> bool:
    """Is this turn conversation rather than a world event? True when any claim is a hypothetical,
    question, imperative or request, or when no claim is factual: such a turn never seeds a causal
    hypothesis (SPEC 3.4)."""
    items = list(assertions)
    if any(a.modality in lx.CONVERSATIONAL or a.hypothetical for a in items):
        return True
    return not any(a.factual for a in items)
