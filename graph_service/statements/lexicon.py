"""The interpreter's vocabulary and its named factors (SPEC 3.5).

Every number the interpreter uses is here, so the weight of an assertion's evidence can be read
off its fields: weight = ASSERTION_BASE_WEIGHT × certainty × (SECOND_HAND_FACTOR if reported)
× interpretation_confidence.
"""

from __future__ import annotations

from typing import Final

INTERPRETER_VERSION: Final = "statements-1"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Evidence weight factors.
ASSERTION_BASE_WEIGHT: Final = 1.0  # a plain, first-hand, clearly read claim
SECOND_HAND_FACTOR: Final = 0.5  # reported or quoted speech: the speaker relays someone else
WEIGHT_DECIMALS: Final = 4

# Certainty: how firmly the attributed actor put it.
CERTAIN: Final = 1.0  # "definitely", "I know that"
PLAIN: Final = 0.9  # an unqualified statement
PROBABLE: Final = 0.7  # "probably", "I'm pretty sure"
THINK: Final = 0.6  # "I think", "it seems", "apparently"
DOUBT: Final = 0.6  # "I doubt …": held against, about as firmly as "I think"
POSSIBLE: Final = 0.4  # "maybe", "might", "could"
UNSURE: Final = 0.3  # "I'm not sure that …": a weak lean against

# Interpretation confidence: how sure the interpreter is of its own reading.
CLEAR: Final = 0.95  # a construction the interpreter recognises
PARAPHRASE_FACTOR: Final = 0.9  # indirect speech: the speaker's wording of another's claim
DOUBLE_NEGATION_FACTOR: Final = 0.8  # two negations are easy to misread
NOT_VERBATIM_FACTOR: Final = 0.75  # an extra claim whose words are not in the message
UNKNOWN: Final = 0.3  # a construction the interpreter does not recognise
SARCASM: Final = 0.2  # a possibly sarcastic remark: the literal reading is not trusted
MIN_FACTUAL_CONFIDENCE: Final = 0.5  # below this a reading is recorded but yields no evidence

MAX_REPORT_DEPTH: Final = 2  # "A said B said X" is followed; deeper nesting is noted as unread
MAX_TEXT_CHARS: Final = 10_000
MAX_EXTRA_CLAIMS: Final = 50

# Modalities.
ASSERT: Final = "assert"
HEDGE: Final = "hedge"
DOUBT_MODALITY: Final = "doubt"
DENIAL: Final = "deny"
HYPOTHETICAL: Final = "hypothetical"
QUESTION: Final = "question"
IMPERATIVE: Final = "imperative"
REQUEST: Final = "request"
UNRECOGNISED: Final = "unknown"
MODALITIES: Final = (
    ASSERT,
    HEDGE,
    DOUBT_MODALITY,
    DENIAL,
    HYPOTHETICAL,
    QUESTION,
    IMPERATIVE,
    REQUEST,
    UNRECOGNISED,
)
CONVERSATIONAL: Final = frozenset({HYPOTHETICAL, QUESTION, IMPERATIVE, REQUEST})
FACTUAL_MODALITIES: Final = frozenset({ASSERT, HEDGE, DOUBT_MODALITY, DENIAL})

FOR: Final = "for"
AGAINST: Final = "against"
NONE: Final = "none"

# Markers of possible sarcasm, at the start of a clause or at its end.
SARCASM_OPENERS: Final = (
    "yeah right",
    "yeah sure",
    "oh great",
    "oh wonderful",
    "oh perfect",
    "oh sure",
    "oh joy",
    "sure because",
    "as if",
    "just great",
    "just perfect",
    "just what i needed",
    "just what we needed",
    "thanks a lot",
    "what a surprise",
    "big surprise",
    "wow great",
)
SARCASM_CLOSERS: Final = ("yeah right", "not", "as if", "/s", "what a surprise", "big surprise")

# Leading words that make a request of the hearer.
REQUEST_OPENERS: Final = (
    "please",
    "kindly",
    "could you",
    "can you",
    "would you",
    "will you",
    "would you mind",
    "i need you to",
    "i want you to",
    "i'd like you to",
    "let's",
    "let us",
)

# Leading words that set up a supposition (kept out of the proposition).
HYPOTHETICAL_OPENERS: Final = (
    "what if",
    "suppose that",
    "suppose",
    "supposing",
    "imagine that",
    "imagine if",
    "imagine",
    "assuming that",
    "assuming",
    "let's say",
    "let us say",
    "hypothetically",
    "in theory",
)
# Words that make a clause conditional wherever they stand (kept in the proposition).
CONDITIONAL_WORDS: Final = frozenset({"if", "unless", "whether"})
COUNTERFACTUAL_PAIRS: Final = (("would", "have"), ("could", "have"), ("might", "have"))

# Base verbs that open an imperative.
IMPERATIVE_VERBS: Final = frozenset(
    _words(
        """
    add ask bring buy call cancel check close come delete deploy do don't fetch find fix forget get give
    go help install keep leave let look make move never note open order pay put read reboot remember
    remove restart revert roll run save send show start stop take tell try turn update upgrade wait
    write
    """
    )
)
DISCOURSE_MARKERS: Final = frozenset(
    {"look", "listen", "well", "so", "ok", "okay", "honestly", "anyway", "actually", "frankly", "basically"}
)

# First-person frames: (opening words, certainty, modality, stance); a following "that",
# "whether" or "if" goes with the frame. Longer openings are listed before their prefixes.
FRAMES: Final = (
    ("i seriously doubt", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i doubt", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i don't think", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i do not think", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i don't believe", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i do not believe", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i'm skeptical", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i am skeptical", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i'm not convinced", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i am not convinced", DOUBT, DOUBT_MODALITY, AGAINST),
    ("it's likely", PROBABLE, HEDGE, FOR),
    ("it is likely", PROBABLE, HEDGE, FOR),
    ("it's unlikely", DOUBT, DOUBT_MODALITY, AGAINST),
    ("it is unlikely", DOUBT, DOUBT_MODALITY, AGAINST),
    ("i'm not sure", UNSURE, DOUBT_MODALITY, AGAINST),
    ("i am not sure", UNSURE, DOUBT_MODALITY, AGAINST),
    ("i know", CERTAIN, ASSERT, FOR),
    ("i'm sure", CERTAIN, ASSERT, FOR),
    ("i am sure", CERTAIN, ASSERT, FOR),
    ("i'm certain", CERTAIN, ASSERT, FOR),
    ("i am certain", CERTAIN, ASSERT, FOR),
    ("i'm pretty sure", PROBABLE, HEDGE, FOR),
    ("i'm fairly sure", PROBABLE, HEDGE, FOR),
    ("i am pretty sure", PROBABLE, HEDGE, FOR),
    ("i think", THINK, HEDGE, FOR),
    ("i believe", THINK, HEDGE, FOR),
    ("i guess", THINK, HEDGE, FOR),
    ("i suppose", THINK, HEDGE, FOR),
    ("i reckon", THINK, HEDGE, FOR),
    ("i suspect", THINK, HEDGE, FOR),
    ("i assume", THINK, HEDGE, FOR),
    ("i feel like", THINK, HEDGE, FOR),
    ("i feel", THINK, HEDGE, FOR),
    ("it seems like", THINK, HEDGE, FOR),
    ("it seems", THINK, HEDGE, FOR),
    ("seems like", THINK, HEDGE, FOR),
    ("it looks like", THINK, HEDGE, FOR),
    ("looks like", THINK, HEDGE, FOR),
    ("apparently", THINK, HEDGE, FOR),
)
# Hedging and boosting adverbs, wherever they stand (removed from the proposition).
ADVERBS: Final = {
    "definitely": CERTAIN,
    "certainly": CERTAIN,
    "clearly": CERTAIN,
    "undoubtedly": CERTAIN,
    "probably": PROBABLE,
    "likely": PROBABLE,
    "presumably": PROBABLE,
    "apparently": THINK,
    "seemingly": THINK,
    "maybe": POSSIBLE,
    "perhaps": POSSIBLE,
    "possibly": POSSIBLE,
}
MODAL_VERBS: Final = frozenset({"might", "may", "could"})

# Reporting verbs: what the reported actor did with the claim.
REPORT_VERBS: Final = {
    **dict.fromkeys(
        _words(
            "said says told tells claims claimed mentioned mentions reported reports wrote writes "
            "stated states insists insisted announced announces explained explains confirmed confirms "
            "added adds replied replies warned warns"
        ),
        (PLAIN, ASSERT, FOR),
    ),
    **dict.fromkeys(
        _words("thinks thought believes believed suspects suspected guesses guessed reckons reckoned"),
        (THINK, HEDGE, FOR),
    ),
    **dict.fromkeys(_words("feels felt"), (THINK, HEDGE, FOR)),
    **dict.fromkeys(_words("doubts doubted"), (DOUBT, DOUBT_MODALITY, AGAINST)),
    **dict.fromkeys(_words("denies denied"), (PLAIN, DENIAL, AGAINST)),
    **dict.fromkeys(_words("asked asks wondered wonders"), (PLAIN, QUESTION, NONE)),
}
# "I heard that …": second-hand from someone the speaker does not name.
HEARSAY_OPENERS: Final = ("i heard", "i've heard", "i have heard", "word is", "rumour has it", "rumor has it")

FIRST_PERSON: Final = frozenset({"i", "we"})
UNNAMED_SOURCES: Final = frozenset(
    {"he", "she", "it", "they", "someone", "somebody", "everyone", "everybody", "people"}
    | {"a friend", "a colleague"}
)

# Negation (kept in the proposition; stripped only from its `core`).
NEGATION_WORDS: Final = frozenset(_words("not no never cannot nobody nothing none neither nor"))
NEGATION_DROPPED_FROM_CORE: Final = frozenset({"not", "no", "never"})
IRREGULAR_NEGATIONS: Final = {
    "won't": "will",
    "can't": "can",
    "shan't": "shall",
    "cannot": "can",
    "ain't": "is",
}

# Evidence that a clause has a finite verb (a heuristic: missing one marks the claim unrecognised).
FINITE_VERBS: Final = frozenset(
    _words(
        """
    am is are was were be been being has have had do does did will would shall should can could may
    might must went left came saw said told took gave got made knew thought found ran fell broke won
    lost sent began became kept held brought bought wrote ate drank sat stood met paid put set cut hit
    let felt heard meant built spent stole froze rose grew drew blew threw flew drove spoke woke wore
    shut quit hurt cost rang sang swam hid chose forgot understood slept led fed fled fought caught
    taught sold struck stuck hung spun dealt
    """
    )
)
SUBJECT_PRONOUNS: Final = frozenset({"i", "you", "we", "they", "he", "she", "it", "there"})
CONTRACTION_SUFFIXES: Final = ("'s", "'re", "'m", "'ve", "'ll", "'d", "n't")
