//! Word and phrase lists the rules consult: stopwords, synonyms, fillers,
//! dodges, yes/no markers, correction cues and name/address vocabulary.

use agentcall_english::stem::stem;

/// Function words and call pleasantries: never keywords of a field, and
/// not content when judging whether a phrase says anything.
#[rustfmt::skip]
pub(super) const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "and", "or", "but", "is",
    "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there",
    "here", "as", "if", "whether", "which", "what", "who", "whom", "whose", "when", "where", "why", "how",
    "do", "does", "did", "have", "has", "had", "will", "would", "can", "could", "should", "shall", "may",
    "might", "must", "not", "no", "yes", "i", "me", "my", "we", "us", "our", "you", "your", "he", "him",
    "his", "she", "her", "they", "them", "their", "any", "some", "all", "each", "every", "so", "than",
    "then", "too", "very", "just", "also", "about", "up", "out", "into", "more", "most", "such", "only",
    "get", "got", "i'm", "it's", "that's", "there's", "we're", "you're", "they're", "i'll", "we'll",
    "you'll", "i'd", "we'd", "i've", "we've", "okay", "ok", "oh", "um", "uh", "well", "like", "hi", "hello",
    "thanks", "thank", "please", "yeah", "yep", "call", "calling", "called", "caller", "assistant",
    "automated", "ai", "agent", "behalf", "let", "know", "go", "going", "per", "dollar", "dollars", "usd",
    "cents", "eg", "ie", "etc", "given", "via", "many", "much", "e", "g", "s", "one", "being", "whose",
    "someone", "something", "anything", "is", "am", "isn't", "don't", "doesn't", "lowercase", "uppercase",
    "digits", "digit", "form", "format", "value", "she's", "he's", "they've", "you've", "she'll", "he'll",
    "they'll", "she'd", "he'd", "they'd", "though", "although", "however", "anyway",
];

/// Name words that say little about the topic.
#[rustfmt::skip]
pub(super) const GENERIC_NAME_WORDS: &[&str] = &[
    "name", "number", "amount", "value", "type", "choice", "new", "current", "is", "has", "main", "kind",
];

/// Common verbs in names: they say something, but less than a noun.
#[rustfmt::skip]
pub(super) const LIGHT_NAME_WORDS: &[&str] = &[
    "need", "needs", "want", "wants", "get", "gets", "keep", "keeping", "use", "add", "adds", "take", "make",
    "give",
];

/// Weekday names in lower case, for spotting fields tied to a day.
#[rustfmt::skip]
pub(super) const WEEKDAY_WORDS: &[&str] = &[
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
];

/// Synonym groups (surface words; stemmed at use).
#[rustfmt::skip]
const SYNONYMS: &[&[&str]] = &[
    &["price", "cost", "charge", "fee", "rate", "quote"],
    &["available", "open", "opening", "availability", "free"],
    &["allowed", "permitted", "accepted", "allow"],
    &["person", "guest", "head", "people"],
    &["alternative", "another", "other", "else", "different"],
    &["bag", "suitcase", "luggage"],
    &["recommend", "suggest"],
    &["home", "house"],
    &["ready", "done", "finished"],
    &["cancel", "cancellation", "terminate", "termination"],
    &["weight", "weigh", "heavy"],
    &["pet", "pets", "dog", "dogs", "cat", "animal"],
    &["neutered", "fixed", "spayed"],
    &["attend", "attending", "come", "coming", "join"],
    &["chaperone", "volunteer", "join"],
    &["start", "begin", "starting"],
    &["included", "include", "covered", "cover"],
    &["spot", "space", "opening", "room"],
    &["servers", "serve", "serving", "staff"],
    &["size", "big", "large"],
    &["duration", "long", "length"],
    &["location", "where"],
    &["delivered", "delivery", "arrive"],
    &["removed", "out"],
    &["confirmed", "confirm"],
    &["refill", "refills", "prescription"],
    &["total", "owe", "owed"],
    &["headcount", "guests", "people"],
    &["message", "writing", "written", "write", "wording", "inscription", "say", "says"],
    &["instructor", "teacher", "teach", "teaches", "tutor", "coach"],
    &["fixed", "resolved", "repaired", "working", "solved"],
    &["improve", "improvement", "better"],
];

/// [`SYNONYMS`], stemmed once.
pub(super) fn stemmed_synonyms() -> &'static [Vec<String>] {
    static CELL: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        SYNONYMS
            .iter()
            .map(|g| g.iter().map(|w| stem(w)).collect())
            .collect()
    })
}

/// Things whose value is a proper name ("name of the bakery", "brand").
#[rustfmt::skip]
pub(super) const NAMED_THINGS: &[&str] = &[
    "park", "venue", "shop", "store", "company", "brand", "provider", "business", "restaurant", "hotel",
    "city", "town", "street", "school", "clinic", "hospital", "bank", "insurance", "insurer", "airline",
    "carrier", "hall", "competitor", "competing", "team", "firm", "agency", "pharmacy", "building", "center",
    "centre", "neighborhood", "country", "state", "vendor", "make", "manufacturer", "club", "gym", "church",
    "airport",
];
/// Things (not people) that a name field may also be about.
#[rustfmt::skip]
pub(super) const ORG_WORDS: &[&str] = &[
    "park", "venue", "shop", "store", "company", "brand", "provider", "business", "restaurant", "hotel",
    "city", "town", "street", "school", "clinic", "hospital", "bank", "insurance", "insurer", "airline",
    "carrier", "hall", "location", "competitor", "competing", "product", "model", "treatment", "service",
    "plan", "dish", "song", "book", "movie", "team", "firm", "agency", "pharmacy", "place", "building",
    "center", "centre", "neighborhood", "country", "state", "vendor", "make", "manufacturer", "club", "gym",
    "church", "airport",
];
/// Words that make a name field about a person.
#[rustfmt::skip]
pub(super) const PERSON_WORDS: &[&str] = &[
    "staff", "member", "person", "who", "contact", "representative", "rep", "host", "nurse", "doctor", "vet",
    "owner", "employee", "worker", "agent", "receptionist", "coordinator", "manager", "technician", "tech",
    "surname", "firstname", "lastname", "pharmacist", "therapist", "stylist", "dentist", "physician",
    "driver", "teacher", "tutor", "instructor", "adjuster", "director", "tuner", "landlord", "seller",
    "buyer", "guest", "caller", "speaker", "spouse", "wife", "husband", "son", "daughter", "mom", "dad",
    "mother", "father",
];

/// Hesitations, discourse markers and acknowledgements that carry no content.
#[rustfmt::skip]
pub(super) const FILLERS: &[&str] = &[
    "um", "umm", "uh", "uhh", "hmm", "hm", "mm", "mmm", "er", "erm", "ah", "aw", "oh", "ooh", "well", "so",
    "like", "gosh", "man", "shoot", "ugh", "wow", "hey", "huh", "honestly", "actually", "really", "just",
    "anyway", "anyways", "look", "listen", "sorry", "thanks", "thank", "please", "ha", "heh", "jeez", "geez",
    "boy", "and", "also", "then", "now", "okay", "ok", "alright", "right", "yeah", "yes", "great", "perfect",
    "got", "it", "good", "wait", "i", "mean", "hi", "hello", "see", "let's", "realistically", "basically",
];

/// Phrases that decline or postpone an answer.
#[rustfmt::skip]
pub(super) const DODGES: &[&str] = &[
    "not sure", "no idea", "no clue", "don't know", "do not know", "dunno", "not certain", "can't say",
    "cannot say", "couldn't say", "can't tell", "cannot tell", "couldn't tell", "hard to say",
    "have to check", "need to check", "let me check", "let me look", "let me see", "let me find",
    "let me pull", "have to ask", "need to ask", "i'd have to", "i would have to", "have to think",
    "need to think", "think about", "get back to you", "circle back", "call you back", "let you know",
    "depends", "either way", "maybe", "might", "possibly", "perhaps", "could be", "not decided",
    "haven't decided", "undecided", "still deciding", "hold on", "one sec", "one moment", "hang on",
    "one second", "bear with me", "can't help", "blanking", "can't remember", "don't remember", "forgot",
    "can't recall", "don't recall", "can't think", "on the spot", "i'll email", "we'll see", "probably",
    "i think so", "i guess so", "i believe so", "not at liberty", "check with", "ask the", "find out",
    "no way to know", "can't confirm", "cannot confirm", "unclear", "don't have", "no information",
    "not in the system", "don't see", "up to the", "still arguing", "still working", "haven't heard",
    "run that past", "run it past", "run that by", "run it by", "before i say yes", "ring you back",
    "ring them back", "go through that with", "can talk about that", "can talk about it",
    "i'll call back", "i'll ring back",
    "can discuss that", "can discuss it",
    "not yet decided", "we'll find", "i'll find", "i'll ask", "can't promise", "cannot promise",
    "no promises", "can't guarantee", "cannot guarantee", "not promising",
    // Neither yes nor no ("Yes and no.", "Sometimes.", "It varies.").
    "yes and no", "sometimes", "it varies", "varies",
    // Not knowing ("I wouldn't know", "I don't actually know"; "who knows"
    // opening a clause is read in `clause_polarity`; "a question for my
    // manager" is a pass-on).
    "i wouldn't know", "don't actually know",
    // Not vouching for it ("Should be, I think. I couldn't swear to it.").
    "couldn't swear", "can't swear", "wouldn't swear", "don't quote me", "not a hundred percent",
    // Declining to say at all: no answer, whatever words follow.
    "rather not say", "rather not answer", "rather not share", "prefer not to say",
    "prefer not to answer", "prefer not to share", "won't say", "not saying", "not telling",
    "no comment", "decline to", "keep that private", "keep that to myself", "none of your business",
    // Not allowed to tell ("I'm not able to go into other buyers' positions").
    "not able to go into", "unable to go into", "can't go into that", "can't go into it",
    "can't go into details", "cannot go into that", "cannot go into details", "not able to discuss",
    "unable to discuss", "can't discuss", "cannot discuss", "not able to disclose", "unable to disclose",
    "can't disclose", "cannot disclose", "not able to share that", "can't share that",
    "cannot share that", "can't give out", "cannot give out", "not able to give out",
];

/// Phrases that pass the question on to someone or some other time ("that'd
/// have to go to the committee", "I'll have my manager email him", "a
/// customer's just walked in, can I ring the family back?"): no answer on
/// their own, but, like a hold, they take back no clear answer said before
/// them ("Yes, we deliver. I'll have my manager confirm the slot.").
#[rustfmt::skip]
pub(super) const PASS_ONS: &[&str] = &[
    "good question", "tell you the wrong", "give you the wrong", "that'd have to go",
    "that would have to go", "it'd have to go", "have my manager", "have the manager",
    "go over all that", "go over that with", "go through all that", "just walked in", "can i ring",
    "can i call", "let me ring", "let me call", "give you a wrong", "tell you a wrong",
    "a question for", "an office question", "you'd have to ask", "you'll have to ask",
    "you would have to ask",
];

/// Words that withhold an amount, or leave it open between several: a
/// number near them is no answer. (An approximate amount, "about twenty,
/// maybe twenty-five", still is.)
#[rustfmt::skip]
pub(super) const HEDGES: &[&str] = &[
    "could be", "put a number on", "no idea", "anywhere from", "don't hold me", "can't give you",
    "cannot give you", "won't know", "depends on the day", "it depends",
    // Not fixed yet, or said of something else ("This year's was …, but
    // they haven't set next year's"; "… so I think it's different").
    "haven't set", "hasn't been set", "not been set", "not set yet", "yet to be set", "yet to set",
    "think it's different", "it's different for", "it'd be different", "it'll be different",
    "that's different for",
    "can't tell you how much", "couldn't tell you how much", "can't tell you what", "couldn't tell you what",
    // Not known until someone looks ("I'd have to go look at the sticker").
    "have to go look", "have to look", "need to look", "don't quote me",
    // Varies with the occasion ("sixty on a good one").
    "on a good day", "on a good one", "on a bad day",
];

/// The amount said no longer holds ("It'll be more."): a hedge, unless
/// said on a condition ("if you want a Saturday it'll be more").
#[rustfmt::skip]
pub(super) const OUTGROWN: &[&str] = &[
    "it'll be more", "it'll be higher", "it'll be less", "going to be more", "gonna be more",
];

/// An amount said as a belief ("Forty-five, I think."): a hedge in its
/// own sentence only ("A couple dozen, I think. … Thirty-one so far.").
#[rustfmt::skip]
pub(super) const BELIEFS: &[&str] = &["i think", "i believe", "i guess", "i reckon"];

/// "Depends what the sky's doing": the amount varies with something. A
/// hedge, unless the field asks for one end of the range it spans.
#[rustfmt::skip]
pub(super) const DEPENDS: &[&str] = &["depends what", "depends how", "depends on"];

/// Dodges that leave an amount said before them to be checked ("I'd need
/// to check with our driver"): no answer unless one follows.
#[rustfmt::skip]
pub(super) const CHECKS: &[&str] = &[
    "i'd need to check", "i'd have to check", "i need to check", "i have to check", "i'll have to check",
    "i'll need to check", "i'd need to ask", "i'd have to ask", "i'll have to ask", "i'll get back to you",
];

/// Replies that decline to answer ("I'd have to check", "I'm not sure",
/// "I don't want to give you a wrong number"): to a question asked again,
/// they leave it unanswered.
#[rustfmt::skip]
pub(super) const DECLINES: &[&str] = &[
    "not sure", "don't know", "no idea", "can't say", "couldn't say", "can't tell", "couldn't tell",
    "can't quote", "couldn't quote",
    "i'd have to", "i would have to", "need to check", "get back to you", "let you know",
    "give you a wrong", "tell you a wrong", "give you the wrong", "tell you the wrong",
    "she'll email", "he'll email", "they'll email", "we'll email",
];

/// Dodges that put the other side on hold; an answer usually follows.
#[rustfmt::skip]
pub(super) const HOLDS: &[&str] = &[
    "let me check", "let me look", "let me see", "let me find", "let me pull", "hold on", "one sec",
    "one moment", "hang on", "one second", "bear with me",
];

/// The asker pushing back on an answer's terms, by recalling what was
/// asked for or said ("She mentioned ninety minutes.", "I was told it was
/// forty.") or correcting it ("It's actually a 13 Pro."): the question
/// stays open for the reply that follows.
#[rustfmt::skip]
pub(super) const PUSH_BACKS: &[&str] = &[
    "she mentioned", "he mentioned", "they mentioned", "she said", "he said", "they said",
    "i was told", "we were told", "she was told", "he was told", "she asked for", "he asked for",
    "she wanted", "he wanted", "it's actually", "he actually", "she actually", "they actually",
];

/// Words that make a value tentative ("could be Wednesday", "probably
/// Sam"): no answer for a string field.
pub(super) const TENTATIVE: &[&str] = &[
    "could be", "maybe", "probably", "might be", "perhaps", "possibly",
];

/// Phrases that answer yes outright.
#[rustfmt::skip]
pub(super) const STRONG_YES: &[&str] = &[
    "yes", "yeah", "yep", "yup", "ya", "yea", "yah", "absolutely", "definitely", "certainly", "of course",
    "correct", "exactly", "indeed", "affirmative", "that's right", "you bet", "count me in", "sounds good",
    "will do", "i'll be there", "we'll be there", "why not", "for sure", "by all means", "that works",
    "works for me", "uh-huh", "uh huh", "mm-hmm", "please do", "go ahead", "no problem", "i'd love",
    "we'd love", "happy to", "glad to", "sure thing", "sure", "totally", "you got it", "that'd be great",
    "can't get enough", "can't wait", "couldn't be happier",
    "of course",
];

/// Pronoun and auxiliary ("We do.", "She would."): a yes only as the whole
/// clause, not inside a longer one ("we do deliveries on Fridays").
#[rustfmt::skip]
pub(super) const SHORT_ECHOES: &[&str] = &[
    "i do", "i can", "i will", "i would", "i am", "i have", "i should",
    "you do", "you can", "you will", "you would", "you are", "you have", "you should", "you must",
    "we do", "we can", "we will", "we would", "we are", "we have", "we should",
    "they do", "they can", "they will", "they would", "they are", "they have", "they should", "they must",
    "he does", "he can", "he will", "he would", "he is", "he has", "he should", "he must",
    "she does", "she can", "she will", "she would", "she is", "she has", "she should", "she must",
    "it does", "it can", "it will", "it would", "it is", "it has",
    "there is", "there are", "there will",
];

/// Phrases that answer no outright.
#[rustfmt::skip]
pub(super) const STRONG_NO: &[&str] = &[
    "no", "nope", "nah", "not really", "no way", "not at all", "negative", "afraid not", "i'm afraid",
    "i don't think so", "unfortunately", "won't work", "doesn't work", "not going to work", "can't make it",
    "wish i could", "not right now", "not today", "not yet", "no longer", "not anymore", "say no", "never",
    "don't think so", "not this", "we don't", "we can't", "i can't", "i don't", "it doesn't", "it isn't",
    "we aren't", "they aren't", "she can't", "he can't", "she won't", "he won't", "i won't", "we won't",
    "won't be", "not available", "no can do", "can't do", "it's not", "it is not", "that's not",
    "they're not", "we're not", "not included", "not a chance", "no chance", "not a hope",
    "not possible",
];

/// Pronoun + negated auxiliary: a strong "no" only as the whole reply
/// ("We don't."), not inside a longer clause ("she can't board
/// without a ticket").
#[rustfmt::skip]
pub(super) const SHORT_NEGATIVE_ECHOES: &[&str] = &[
    "we don't", "we can't", "i can't", "i don't", "it doesn't", "it isn't", "we aren't", "they aren't",
    "she can't", "he can't", "she won't", "he won't", "i won't", "we won't", "it's not", "that's not",
    "they're not", "we're not", "never",
];

/// Words that negate the clause they are in.
#[rustfmt::skip]
pub(super) const NEGATIONS: &[&str] = &[
    "not", "never", "none", "nothing", "nobody", "without", "cannot", "no", "neither", "nor",
];

/// States that make an implicit answer a no ("it's booked", "we're full").
#[rustfmt::skip]
pub(super) const NEGATIVE_STATES: &[&str] = &[
    "booked", "full", "gone", "closed", "taken", "unavailable", "sold", "slammed", "swamped", "busy", "hard",
    "rammed", "packed", "shut",
    "tough", "separate", "separately", "extra", "additional", "rejected", "denied", "declined", "cancelled",
    "canceled", "missing", "lost", "broken", "impossible", "difficult", "bad", "problem", "late", "delayed",
    "behind", "overdue", "expired", "discontinued",
];

/// Articles, demonstratives and possessives: no content of their own.
#[rustfmt::skip]
pub(super) const DETERMINERS: &[&str] = &[
    "a", "an", "the", "some", "any", "this", "that", "these", "those", "my", "your", "our", "their", "his",
    "her",
];

/// Nouns naming a charge: an amount qualifying one of them is that charge.
#[rustfmt::skip]
pub(super) const CHARGE_NOUNS: &[&str] = &[
    "fee", "deposit", "charge", "cost", "price", "rent", "tip", "tax", "copay", "fine", "discount", "refund",
    "surcharge", "rate", "minimum", "gratuity", "penalty", "premium", "deductible",
];

/// Negative states that count only as predicates.
pub(super) const PREDICATIVE_NEGATIVES: &[&str] = &[
    "full",
    "busy",
    "hard",
    "tough",
    "bad",
    "difficult",
    "swamped",
    "slammed",
    "rammed",
    "packed",
];

/// Words that accept a proposal when they open a reply.
pub(super) const ACCEPT_WORDS: &[&str] = &[
    "okay", "ok", "alright", "fine", "right", "good", "great", "perfect", "sounds",
];

/// Cues that revise what was said before them in the same reply.
#[rustfmt::skip]
pub(super) const CORRECTION_CUES: &[&str] = &[
    "actually", "wait", "sorry", "i mean", "make that", "rather", "correction", "scratch that",
    "second thought", "instead", "realistically", "call it", "so", "but", "now", "changed", "hang on",
    "let's say", "no", "final", "finally", "i'd say", "put me down", "hold on", "let me re",
];

/// Nouns a number after them names rather than counts ("Unit 412",
/// "order 88-1902", "bus twenty-one").
#[rustfmt::skip]
pub(super) const NAMING_NOUNS: &[&str] = &[
    "unit", "room", "suite", "apartment", "apt", "order", "ticket", "invoice", "account",
    "policy", "reference", "ref", "claim", "bus", "route", "gate", "platform", "table",
    "site", "stall", "bay", "pier", "locker", "extension", "ext", "model",
    "item", "aisle", "lane", "door", "building", "block", "track", "flight", "train", "pew",
    "row", "seat", "code", "pin", "id", "badge", "serial", "booth", "court", "field", "pitch",
    "age", "ages", "aged", "level", "grade", "phase", "stage", "tier", "version", "chapter",
];

/// Cues that turn a reply to another subject ("Oh, by the way, …").
#[rustfmt::skip]
pub(super) const SUBJECT_CHANGES: &[&str] = &[
    "by the way", "before i forget", "speaking of", "on another note", "while i have you",
    "one more thing", "unrelated", "that reminds me", "changing the subject",
];

/// Cues that revise an answer given in an earlier turn ("Oh wait,
/// Thursday's gone now", "Sorry, make that sixteen").
#[rustfmt::skip]
pub(super) const REVISION_CUES: &[&str] = &[
    "actually", "wait", "make that", "instead", "scratch that", "correction", "i mean",
    "second thought", "change that", "forgot", "my mistake", "misspoke", "after all",
    "told you wrong", "gave you the wrong", "got that wrong", "i was wrong", "correct myself",
];

/// Phrases that close the call or a topic ("Thanks, Marco.", "I'll let
/// her know."): a turn of them asks nothing, and a yes after it ("You
/// bet.") answers no question.
#[rustfmt::skip]
pub(super) const SIGN_OFFS: &[&str] = &[
    "thanks", "thank you", "bye", "goodbye", "take care", "let her know", "let him know",
    "let them know", "pass that on", "pass it on", "pass this on", "pass all this on",
];

/// Phrases that take back the amount just said ("thirty-five… oh,
/// sorry, no"), when nothing follows them in the sentence.
#[rustfmt::skip]
pub(super) const SELF_CORRECTIONS: &[&str] = &[
    "sorry no", "no sorry", "no wait", "wait no", "oh no", "no no", "hang on", "hold on",
    "actually no", "scratch that", "i tell a lie", "no hang on", "no hold on",
];

/// Phrases that take back what the speaker said before outright ("I told
/// you wrong on the hookup"): stronger than a revision cue.
#[rustfmt::skip]
pub(super) const RETRACTIONS: &[&str] = &[
    "told you wrong", "gave you the wrong", "got that wrong", "i was wrong", "misspoke",
    "correction", "my mistake", "read you the", "quoted you the", "i was looking at the",
    "wrong one", "the old price", "the old rate", "was last year's", "i forgot to", "forgot to add",
    "forgot to include", "i left off", "i left out", "reading off the old", "the old sheet",
    "the old list", "out of date",
];

/// Words a question may use and still be "bare", i.e. about whatever was
/// just said ("Does either of those work?", "Does it have one?").
#[rustfmt::skip]
pub(super) const BARE_QUESTION_WORDS: &[&str] = &[
    "work", "works", "have", "has", "do", "does", "need", "needs", "sound", "sounds", "right", "correct",
    "okay", "ok", "good", "true", "one",
];

/// Capitalised words that are not names.
#[rustfmt::skip]
pub(super) const CAPITALISED_NON_NAMES: &[&str] = &[
    "i", "i'm", "i'll", "i'd", "i've", "ok", "okay", "ai", "id", "dj", "tv", "am", "pm", "mr", "ms", "mrs",
    "dr", "hi", "hello", "hey", "yes", "yeah", "no", "thanks", "thank", "sorry", "god", "oh", "rsvp",
    "rsvps", "faq", "usa", "us", "uk", "eu", "asap", "ceo", "gps", "suv", "atm", "pdf", "ssn", "dob", "apr",
    "epipen", "fyi", "vip", "ppo", "hmo", "faq", "ok'd", "aka", "etc", "ps", "ii", "iii", "tba", "tbd",
    "eta", "pin", "vin", "ssn",
];

/// Street-type words that end a street name.
#[rustfmt::skip]
pub(super) const STREET_SUFFIXES: &[&str] = &[
    "street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane", "ln", "drive", "dr", "court",
    "ct", "way", "place", "pl", "parkway", "pkwy", "highway", "hwy", "terrace", "circle", "square", "trail",
    "alley",
];

/// Verbs that make a phrase a clause rather than a bare answer.
#[rustfmt::skip]
pub(super) const VERB_WORDS: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "can", "could",
    "will", "would", "should", "may", "might", "must", "got", "get", "gets", "go", "goes", "going", "went",
    "come", "comes", "need", "needs", "want", "wants", "think", "know", "take", "takes", "make", "makes",
    "said", "say", "says", "let", "put", "give", "gives", "tell", "told", "looks", "sounds", "works",
];

/// Pleasantries that are never a field value.
#[rustfmt::skip]
pub(super) const CLOSINGS: &[&str] = &[
    "bye", "goodbye", "thanks", "thank", "welcome", "hello", "hi", "cheers", "care", "later", "problem",
    "worries", "sure", "course", "good", "great", "fine", "okay", "nice", "awesome", "wonderful", "perfect",
];

/// Phrases that confirm what was said outright ("that's right").
pub(super) const CONFIRMATIONS: &[&str] = &["that's right", "that's correct", "correct", "exactly"];

/// Phrases that take leave ("Have a good day.", "Bye now."): a yes
/// beside them answers a goodbye.
pub(super) const FAREWELLS: &[&str] = &[
    "have a good",
    "have a great",
    "have a nice",
    "bye",
    "goodbye",
    "take care",
    "you too",
    "talk soon",
    "speak soon",
];

/// Openers stripped from a bare answer before the value ("it's", "we have").
#[rustfmt::skip]
pub(super) const LEAD_PHRASES: &[&str] = &[
    "it's", "it is", "that's", "that is", "they're", "she's", "he's", "there's", "we have", "we've got",
    "i've got", "i have", "we got", "i'd say", "i'd like", "i'll have", "i'll take", "let's do",
    "let's go with", "let's say", "we go with", "we use", "we recommend", "go with", "make it", "she'd like",
    "he'd like", "she wants", "he wants", "we'd like", "i want", "she has", "he has", "the answer is",
    "it'd be", "it would be", "probably", "definitely", "mostly", "usually", "just", "only", "for",
];
/// Closers stripped from a bare answer after the value ("for me", "please").
#[rustfmt::skip]
pub(super) const TAIL_PHRASES: &[&str] = &[
    "for me", "for her", "for him", "for us", "please", "got it", "thanks", "thank you", "i guess",
    "i think", "that kind of thing", "honestly", "for sure", "then", "mostly", "i suppose", "if possible",
    "too", "for all of them", "for all of us", "for everyone", "for everybody", "across the board",
    "as standard", "these days", "nowadays",
];

/// Words that, ending a proper name, make it a business's, never a
/// person's ("RoadReady Mobile Repairs", "Harbourview Inn"). Unlike
/// [`ORG_WORDS`], which are words of a field's description that ask for
/// such a name.
#[rustfmt::skip]
pub(super) const BUSINESS_WORDS: &[&str] = &[
    "repairs", "repair", "services", "service", "clinic", "ltd", "inc", "llc", "company", "co",
    "group", "centre", "center", "studio", "studios", "shop", "store", "salon", "garage", "hotel",
    "inn", "lanes", "rentals", "rental", "supplies", "supply", "plumbing", "electric", "cleaning",
    "removals", "partners", "associates", "bakery", "pharmacy", "surgery", "practice", "hospital",
    "school", "academy", "gym", "club", "cafe", "restaurant", "agency", "solutions", "motors",
    "kitchens", "paints", "photography", "entertainment", "events", "apartments", "properties",
    "realty", "insurance", "bank", "museum", "library", "council", "marquees", "hire",
    "dental", "dentistry", "vets", "veterinary", "medical", "health", "care", "law", "legal",
    "office", "offices", "works", "landscaping", "roofing", "heating", "cooling", "auto", "tires",
];
