"""The patterns a clause is read with (``reading.py``): leads set aside, the markers of each kind,
and the relations tried in order on the clause's frame (values replaced by ``<v>`` slots). Data only."""

from __future__ import annotations

import re

from .clauses import IDENTITY_KINDS, TYPED_KINDS
from .vocabulary import CHANGE_PAST_VERB, CHANGE_THIRD_VERB, CORRECTION_LEAD, NO_CIRCUMSTANCES, RESULT_WORDS

# --- reading a clause ---------------------------------------------------------------------------
_LEAD = re.compile(
    rf"^(?:(?:ok(?:ay)?|so|also|and|but|oh|ah|well|hey|actually|update|correction|change of plans?|heads[- ]up|fyi|note|btw|"
    r"by the way|one more thing|quick update|sorry|just so you know|for the record|remember(?: that)?|please note(?: that)?|"
    rf"keep in mind(?: that)?|new info|for context|context|important|reminder|never mind|{CORRECTION_LEAD}|"
    r"i (?:was|'ve been|have been) told(?: that)?|i heard(?: that)?|i (?:just )?learned(?: that)?|apparently|it turns out(?: that)?|"
    r"turns out(?: that)?|good news|bad news)\b[\s,:;!.-]*)+",
    re.IGNORECASE,
)
_NEG = re.compile(r"\b(never|not|no longer|avoid|stop|without|nobody|no one|nothing|none|" + NO_CIRCUMSTANCES + r"|don't|dont|doesn't|mustn't|shouldn't|can't|won't|isn't|aren't)\b|n't\b", re.IGNORECASE)
# "no files … get deleted": a determiner that negates (only for telling a safety rule; polarity uses _NEG)
_NO = re.compile(r"\bno\s+[a-z]", re.IGNORECASE)
_SAFETY_WORDS = re.compile(
    r"\b(delet\w*|remov\w*|drop\w*|wip\w*|truncat\w*|destroy\w*|rm\b|rm -rf|force[- ]?push\w*|--force|push\w* to (?:main|master|prod\w*)|"
    r"prod\b|production|secret\w*|credential\w*|password\w*|api keys?|tokens?|private keys?|signing keys?|ssh keys?|keystores?|\.env\b|customer data|pii|personal data|"
    r"deploy\w*|migrat\w*|database|reset --hard|rewrite history|billing|payment\w*|money|charge\w*|email\w* (?:customers|users)|"
    r"disable\w* (?:tests|ci|auth)|sudo|chmod|permissions?)",
    re.IGNORECASE,
)
_SAFETY_POS = re.compile(
    r"\b(always|must)\s+(ask|confirm|check with|get approval|get sign-?off)\b|\bwithout (asking|approval|confirmation|sign-?off)\b|\bsafety\b|\bdestructive\b"
    # ask first: "Check with me before you modify …", "Get my OK before …", "Ask me before any write to …"
    r"|^(?:please\s+)?(?:always\s+)?(?:ask|check with|confirm with|clear it with|run it by|talk to|ping)\s+(?:me|us|the team|someone)\b(?:\s+first)?\s+before\b"
    r"|^(?:please\s+)?(?:always\s+)?get\s+(?:my|our|an?)\s+(?:ok|okay|approval|sign-?off|go-?ahead|green light)\s+(?:first\s+)?before\b"
    # ask first, said of the thing: "Payouts over V come to me first", "Any schema change needs my sign-off"
    r"|\b(?:go|goes|come|comes|pass|passes|run|runs|get sent|are sent|is sent)\s+(?:to|through|past|by)\s+(?:me|us)\s+first\b"
    r"|\bneeds?\s+(?:my|our)\s+(?:ok|okay|approval|sign-?off|go-?ahead|green light)\b",
    re.IGNORECASE,
)
_PREF = re.compile(
    r"\b(i(?:'d| would)(?:\s+(?:much|really|still|now))? rather|i(?:'d| would)?(?:\s+(?:now|still|really|also|actually|much|strongly|generally|usually))*\s+"
    r"(?:prefer|like|love|want|favou?r|appreciate|be (?:glad|happy|grateful|pleased|content|fine|ok|okay) (?:to|if|for|with))|prefer(?:ably)?|my preference|rather than|i'm partial to|ideally|"
    # what suits the speaker: "X would be ideal for me", "X suits me better", "X works best for me"
    r"(?:would be|is|are|sounds?)\s+(?:\w+\s+)?(?:ideal|perfect|preferable|best|nicer|better|great)\s+(?:for|to)\s+me|suits? me|works? (?:best|better) for me|"
    # Kind: the speaker's liking said as how a thing is for them — "Dark mode reads better for me", "Short answers suit us
    # best", "A plain CSV would be lovely", "I'm happiest when tests run in parallel", "I'd reach for ripgrep first"
    r"[a-z]+\s+(?:best|better)\s+for\s+(?:me|us)|suits?\s+us|(?:would|'d)\s+be\s+(?:really\s+|very\s+)?(?:lovely|nice|ideal|perfect|wonderful|handy|great)(?=\s*[.!]?$)|"
    r"i(?:'m|\s+am)\s+(?:happiest|most comfortable|happier)\b|i(?:'d|\s+would)\s+(?:go with|reach for|opt for|pick|choose))\b",
    re.IGNORECASE,
)
_RULE = re.compile(
    r"\b(never|always|must|mustn't|only|at most|at least|no more than|not more than|no less than|no later than|don't|do not|"
    r"from now on|going forward|from here on|in future|by default|every|each|whenever|any time|cap(?:ped)?|limit(?:ed)?|"
    r"deadline|due (?:by|on)|required?|mandatory|make sure|ensure|should(?:n't)?|under no circumstances|forbidden|not allowed|"
    r"no longer|budget|maximum|minimum|max|min|quota|up to|as (?:long|many|much) as|may(?: not| now)?|can(?:not| now)?|exceed|"
    r"allowed|has to|have to|needs? to|due|limit)\b",
    re.IGNORECASE,
)
_STYLE_VERBS = (  # verbs whose bare imperative states how to work, not a one-off task
    "use|keep|write|answer|reply|respond|format|stick|avoid|stop|follow|default|address|sign|prefix|suffix|indent|wrap|limit|"
    "cap|pin|quote|cite|speak|talk|round|express|measure|prefer|name|always|never"
)
_IMPERATIVE = re.compile(rf"^(?:please\s+)?(?:{_STYLE_VERBS})\b", re.IGNORECASE)
_GOAL_HEAD = {"goal", "objective", "aim", "mission", "task", "priority", "focus", "target"}
_CONSTRAINT_HEAD = {"budget", "deadline", "cap", "limit", "quota", "maximum", "minimum", "max", "min", "freeze", "sla", "timeout"}
_WH = re.compile(r"^(what|who|whom|whose|why|how|where|when|which|can|could|would|will|should|is|are|do|does|did|have|has)\b", re.IGNORECASE)
_CHATTER = re.compile(r"^(thanks?|thank you|great|nice|cool|sounds good|looks good|lgtm|perfect|awesome|ok(?:ay)?|sure|got it|hi|hello|hey|good (?:morning|night|evening))\b", re.IGNORECASE)

_IDENTITY = IDENTITY_KINDS
_V = r"<v>"
_GROUP = r"(?:team|squad|crew|group)"  # "to the <v> team": the team's name is the value
# an imperative that points a subject at a value: "Repoint the replica host to <v>"
_POINT_AT = re.compile(
    rf"^(?:please\s+)?(?!(?:talk|ask|send|email|tell|reply|write|give|show|explain|add|fix)\b)[a-z]+\s+"
    # "Point anything meant for the X at V": what is sent to the subject, then the subject
    rf"(?:(?:anything|everything|all|traffic|requests|calls|mail)\s+(?:(?:meant|destined|bound|headed|sent)\s+)?(?:for|to)\s+)?"
    rf"(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:to|at)\s+(?P<v>{_V}.*)$"
)
# an undone change said with what it returns to: "Undo the changes to X: back to V, like we had it originally" (read as "Set X back to V")
_UNDO = re.compile(r"^(?:please\s+)?(?:let's\s+)?(?:undo|revert|roll back|reverse)\s+(?:the\s+|my\s+|our\s+|that\s+|those\s+)?(?:last\s+)?(?:changes?|edits?|updates?)\s+(?:to|on|of|for)\s+"
                   r"(?P<s>[^:;]+?)\s*[:;,—-]+\s*(?:it's\s+|it is\s+|we're\s+|we are\s+|go\s+|going\s+)?back\s+to\s+(?P<v>.+)$", re.IGNORECASE)
# what may follow a returned-to value: "…, like we had it originally", "…; the change didn't work out"
_BACK_TAIL = r"(?:\s*,?\s+(?:like|as)\s+(?:we\s+had\s+it|it\s+was|before|originally)[^<]*|\s*;[^<]*)?"
_RELATIONS: list[tuple[str, re.Pattern[str]]] = [
    ("rename", re.compile(rf"^(?:(?:we|i|they|you)\s*(?:'ve|have|had|are|'re|will)?\s+)?(?:now\s+)?(?:just\s+)?(?:renamed|renaming|rename)\s+(?P<s>.+?)\s+(?:to|as)\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:(?:we|i|they|you|let's|everyone|everybody|people|folks|the team)\s*(?:'re|are|will|'ll)?\s+)?(?:now\s+)?(?:be\s+)?(?:calling|calls|call|naming|name)\s+(?P<s>.+?)\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|was|will be|has been|gets|got|is going to be|are going to be)\s+(?:now\s+)?(?:[a-z]+ly\s+)?(?:called|named|codenamed|renamed|known as|rechristened|dubbed|redubbed|retitled)(?:\s+(?:again|once more|today|recently))?,?\s+(?:to\s+|as\s+)?(?P<v>{_V}.*)$")),
    ("owner", re.compile(rf"^(?P<v>{_V})\s+(?:now\s+|will\s+|has\s+)*(?:owns|own|is the owner of|is responsible for|runs|leads|maintains|handles|takes over|took over|taken over|is in charge of|"
               rf"takes care of|took care of|is taking care of|takes on|took on|has taken on|picks up|picked up|has picked up|looks after|looked after|oversees|oversaw|"
               rf"manages|managed|is handling|is managing|inherits|inherited|has inherited|adopts|adopted)\s+(?P<s>.+)$")),
    ("owner", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|will be)\s+(?:now\s+)?(?:owned|run|led|maintained|handled)\s+by\s+(?P<v>{_V}.*)$")),
    ("owner", re.compile(rf"^(?P<s>.+?)\s+(?:now\s+|will\s+)?(?:belongs?|goes|go|went|passe[sd]|has passed|has gone|"
               rf"(?:was|were|got|has been|have been)\s+(?:handed|passed|given|transferred|reassigned)(?:\s+over)?)\s+(?:now\s+)?(?:to|through)\s+(?:the\s+)?(?P<v>{_V})(?:\s+{_GROUP})?$")),
    # "Chiara handed the X to Tomas last week": the one it was handed to owns it
    ("owner", re.compile(rf"^(?:{_V}|[a-z]+)\s+(?:has\s+|had\s+|just\s+)*(?:handed|passed|gave|transferred|turned)\s+(?:over\s+)?(?P<s>(?:the|our|my|this)\s+.+?)\s+"
               rf"(?:over\s+|on\s+)?to\s+(?:the\s+)?(?P<v>{_V})(?:\s+{_GROUP})?(?:\s+[a-z]+(?:\s+[a-z]+)?|\s+(?:on|at|by|last|this)\s+{_V})?$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:now\s+)?(?:goes|will go|went)\s+by\s+(?:the\s+name\s+(?:of\s+)?)?(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:(?:we|i|they|you|let's)\s*(?:'ll|will|'re|are|shall)?\s+)?(?:now\s+)?(?:refer(?:ring)? to|think of)\s+(?P<s>.+?)\s+as\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|was|has been|will be)\s+(?:now\s+)?(?:rebranded|relabell?ed|re-?titled)\s+(?:as|to)\s+(?P<v>{_V}.*)$")),
    ("change", re.compile(
        rf"^(?:we|they|i|you|someone|management|the team)\s+(?:have\s+|'ve\s+|just\s+|had\s+to\s+)*(?:{CHANGE_PAST_VERB}|"
        rf"set|migrated|upgraded|downgraded|relocated|transferred)\s+(?P<s>.+?)\s+(?:back\s+|out\s+|forward\s+|up\s+|in\s+|over\s+)?"
        rf"(?:to|onto|into|until|till|at|on)\s+(?P<v>.*{_V}.*)$"
    )),
    ("change", re.compile(
        rf"^(?P<s>.+?)\s+(?:(?:has|have|got|was|were|is|are|been|had|will|'s)\s+)*(?:now\s+|just\s+|officially\s+)?"
        rf"(?:{CHANGE_PAST_VERB}|{CHANGE_THIRD_VERB}|reset|upgraded|downgraded|migrated|went|gone|go|move|slip|change|switch|planned|"
        rf"scheduled|expected|set|resolves|resolved|points|pointed)\s+(?:back\s+|up\s+|down\s+|out\s+|in\s+|over\s+)?"
        rf"(?:(?:by\s+)?(?:a|an|one|two|three|another|a few|a couple of)\s+(?:more\s+)?(?:days?|weeks?|months?|hours?|bit)\s*,?\s+|by\s+{_V}\s*,?\s+)?"
        rf"(?:from\s+{_V}\s+)?(?:to|onto|into|until|till|at|on|for)\s+(?P<v>.*{_V}.*)$"
    )),
    # someone else changed it: "Ops moved the X to <v>", "Release management pushed the X back to <v>", "Product loosened the X to <v>"
    ("change", re.compile(
        rf"^(?:{_V}|[a-z]+(?:\s+[a-z]+)?)\s+(?:have\s+|has\s+|'ve\s+|just\s+|finally\s+)*(?:{CHANGE_PAST_VERB}|"
        rf"capped)\s+"
        rf"(?P<s>(?:the|our|my|this|their)\s+[^<]+?)\s+(?:back\s+|out\s+|forward\s+|up\s+|down\s+)?(?:to|onto|until|till|at|on)\s+(?P<v>.*{_V}.*)$"
    )),
    # when a thing happens: "Code freeze for the X starts <v>", "the rollout now begins <v>"
    ("when", re.compile(rf"^(?P<s>[a-z][^<]*?)\s+(?:now\s+)?(?:starts|begins|kicks off|ends|closes|opens|takes effect|goes live)\s+(?:on\s+|at\s+|in\s+|from\s+)?(?P<v>{_V})$")),
    # where or how a thing is found: "The X lives in <v>", "the X settings come from <v>", "The X listens on <v>"
    ("is", re.compile(rf"^(?P<s>(?:(?:the|our|my|this)\s+|(?!(?:let|it|that|what|here|there|who)'s)[a-z][\w.-]*'s\s+)[^<]+?)\s+(?:now\s+)?(?:lives?|sits?|comes?|resides?|listens?|answers?|loads?|is read|are read|is kept|are kept)\s+(?:now\s+)?(?:in|on|at|from|under)\s+(?P<v>{_V})$")),
    # an id a thing is kept under: "Log everything for the X under <v>", "<v> replaces the old ticket for the X"
    ("is", re.compile(rf"^(?:please\s+)?(?:log|file|track|record|put|book)\s+(?:everything|it|all|work|all work|anything)\s+(?:for|on|about)\s+(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:under|in|as|to)\s+(?P<v>{_V})$")),
    ("is", re.compile(rf"^(?P<v>{_V})\s+(?:now\s+)?(?:replaces|supersedes|takes over from)\s+(?:the\s+)?(?:old|previous|earlier|original|first)\s+(?:ticket|issue|id|one|number|epic)\s+(?:for|of)\s+(?P<s>.+)$")),
    # "the idle timeout turned into <v>", "the quota became <v>"
    ("change", re.compile(rf"^(?P<s>.+?)\s+(?:has\s+|have\s+|now\s+)*(?:became|become|becomes|turned into|turns into|has turned into)\s+(?P<v>.*{_V}.*)$")),
    # "Commit titles top out at <v>": a limit
    ("set", re.compile(rf"^(?P<s>.+?)\s+(?:tops?|maxe?s?|caps?|peaks?)\s+out\s+at\s+(?P<v>.*{_V}.*)$")),
    # "The image store is marketed as <v>", "the X ships under the name <v>", "the public name of X is <v>"
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|was|will be|will|gets|now)?\s*(?:marketed|sold|branded|released|shipped|published|ships|ship|sells|sell|goes out|go out|launches|launch)\s+(?:as|under the name)\s+(?P<v>{_V}.*)$")),
    # a page or a catalogue names it: "Our pricing page lists X as <v>"
    ("rename", re.compile(rf"^(?:(?:the|our|my)\s+[a-z]+(?:\s+[a-z]+)?\s+)?(?:lists|list|shows|show|presents|markets|sells|bills)\s+(?P<s>.+?)\s+as\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:the\s+)?(?:[a-z]+\s+)?(?:name|codename|label|nickname|alias)\s+(?:of|for)\s+(?P<s>.+?)\s+(?:is|will be|becomes|is now)\s+(?P<v>{_V}.*)$")),
    ("set", re.compile(
        rf"^(?:please\s+)?(?:let's\s+|let us\s+|we should\s+|we'll\s+)?(?:set|cap|limit|keep|hold|pin|fix|move|change|switch|raise|lower|bump|reduce|increase|restrict|make|push|slip|relax|loosen|tighten|lift|trim|extend)\s+"
        rf"(?P<s>.+?)\s+(?:at|to|under|below|above|within|at most|at least|no more than|no higher than|no lower than|as|back to)\s+(?P<v>.*{_V}.*)$"
    )),
    # a return to an earlier value: "Let's go back to V for X", "Undo the changes to X: back to V, like we had it originally"
    ("set", re.compile(rf"^(?:please\s+)?(?:let's\s+|let us\s+|we'll\s+|we should\s+)?(?:go|switch|revert|return|roll|change it|set it)\s+back\s+to\s+(?:the\s+)?(?P<v>{_V})(?:\s+{_GROUP})?\s+(?:for|on|as)\s+(?P<s>[^;<]+?){_BACK_TAIL}$")),
    # "Make the retention of X 200 days", "Let's make the scheduler choice V": set it to the value
    ("set", re.compile(rf"^(?:please\s+)?(?:let's\s+|let us\s+|we'll\s+|we should\s+)?make\s+(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?P<v>{_V})$")),
    ("set", re.compile(rf"^(?:please\s+)?(?:(?:we|i|let's|let us)(?:'ll|'d| will| should| can| have)?\s+)?(?:now\s+)?(?:use|prefer|pick|choose|go with|stick with|stick to|target|run|treat|take|count|assume|settle on|settled on|agreed on|landed on|work with)\s+(?P<v>{_V})\s+(?:for|when|in|on|as)\s+(?P<s>.+)$")),
    # "We refer to X by its codename, V"; "(In the new docs) the X appears as V"
    ("rename", re.compile(rf"^(?:(?:we|i|they|you|people|everyone|everybody|the team)\s+(?:now\s+)?(?:refer to|know|call|mean)\s+)?(?P<s>.+?)\s+by\s+(?:its|their|the|a)\s+(?:new\s+)?(?:codename|name|nickname|alias|label)\s*,?\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:.*\s)?(?P<s>(?:the|our|my)\s+(?:(?!(?:the|our|my)\b)[^<])+?)\s+(?:now\s+)?(?:appears|shows up|is listed|is shown|is displayed|is labell?ed)\s+as\s+(?P<v>{_V}.*)$")),
    # "We say Orion-7 for the indexer", "X has a fresh name, V"
    ("rename", re.compile(rf"^(?:internally\s+)?(?:we|people|everyone|everybody|the team)\s+(?:now\s+)?(?:say|write|use the name)\s+(?P<v>{_V})\s+for\s+(?P<s>.+)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:has|got|gets|now has|carries|goes under)\s+(?:a\s+|the\s+)?(?:new\s+|fresh\s+|different\s+)?(?:name|codename|nickname|alias)\s*[,:]?\s*(?P<v>{_V}.*)$")),
    # "Track the X as <v>", "File the X under <v>": the id it is kept under
    ("is", re.compile(rf"^(?:please\s+)?(?:track|file|log|record|list|tag|book)\s+(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:as|under)\s+(?P<v>{_V})$")),
    # "We run the staging cache TTL at <v>", "We plan to open the launch on <v>"
    ("change", re.compile(rf"^(?:we|i|they)(?:'re|'ll|'ve|'d)?\s+(?:'ll\s+|will\s+|now\s+)?(?:[a-z']+\s+){{1,3}}?(?P<s>(?:the|our|my)\s+.+?)\s+(?:at|on|to|onto|into|until|till|with|by)\s+(?P<v>{_V}.*)$")),
    # "The on-call rotation has Dana this week"
    ("is", re.compile(rf"^(?P<s>(?:the|our|my)\s+[^<]+?)\s+(?:now\s+)?(?:has|holds|lists|shows)\s+(?P<v>{_V}.*)$")),
    # "The batch runner runs <v>", "The worker needs <v>": a determiner-led subject, a verb in the third person, the value
    ("is", re.compile(rf"^(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:now\s+)?(?!(?:is|was|has|does)\b)[a-z]{{2,}}s\s+(?:now\s+)?(?P<v>{_V})$")),
    ("is", re.compile(rf"^(?P<s>.+?)\s*(?:\bis\b|\bare\b|\bwas\b|\bwill be\b|\bshould be\b|\bmust be\b|\bneeds to be\b|\bhas to be\b|\bstays\b|\bremains\b|\bbecomes\b|=|:|\bis set to\b|\bis now\b|\bare now\b|'s now)\s+(?:now\s+)?(?:still\s+)?(?P<v>.*{_V}.*)$")),
    ("when", re.compile(rf"^(?P<s>(?:the|our|my|your|this|that)\s+[^<]+?)\s+[a-z]+\s+(?:on|at|by|in|to|until|till|for|from|around|off|onto)\s+(?P<v>{_V})$")),
    # "The launch goes live <v>", "The beta ships out <v>"
    ("when", re.compile(rf"^(?P<s>(?:the|our|my|your|this|that)\s+[^<]+?)\s+[a-z]+\s+(?:live|out|up|ahead|back|off)\s+(?:(?:on|at|by|in|until|for|around)\s+)?(?P<v>{_V})$")),
    # "Yuki swapped in as this week's on-call engineer", "Omar took over as release manager"
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:(?:now|will|has|have|had|is|was|just|'s)\s+)*(?!(?:known|referred|called|named|listed|described|seen|used)\b)"
                       rf"[a-z]{{3,}}\s+(?:(?:in|up|over|on|back)\s+)?as\s+(?:the\s+|our\s+|my\s+)?(?P<s>[^<]*(?:<v>[^<]*)?)$")),
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:is|are|'s|will be|has been|has|holds|carries|covers|gets|got)\s+(?:now\s+)?(?P<s>.+)$")),
    # "Rosa looks after the audit pipeline", "Mei inherited the billing dashboard"
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:now\s+)?[a-z]{{3,}}(?:s|ed)\s+(?:(?:after|over|up|on|for|into|with)\s+)?(?:now\s+)?(?P<s>(?:the|our|my|this)\s+.+)$")),
    # an imperative that points a subject at a value: "Repoint the replica host to <v>"
    ("set", _POINT_AT),
    # how a thing is reached: "Connect to the X via <v>", "SSH into the X at <v>"
    ("is", re.compile(rf"^(?:please\s+)?(?:connect|talk|log\s*in|ssh|get)\s+(?:to|into|onto)\s+(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:via|at|on|through|using|over)\s+(?P<v>{_V}.*)$")),
    # where a thing is found: "You'll find the runbook under <v>", "You can reach the X at <v>"
    ("is", re.compile(rf"^(?:you(?:'ll| will| can| should)?|we(?:'ll| will| can)?|one can|anyone can)\s+(?:now\s+)?(?:find|reach|get to|see|access)\s+(?P<s>(?:the|our|my|this)\s+.+?)\s+(?:at|under|in|on|via|through)\s+(?P<v>{_V}.*)$")),
    # a relative change that says its result: "Give X a bit more room, say <v>", "Add a week to X, so <v>"
    ("set", re.compile(rf"^(?:please\s+)?(?:give|allow|grant)\s+(?P<s>.+?)\s+(?:a\s+(?:bit|little|lot)\s+|some\s+|much\s+)?(?:more|less|extra)\s+(?:room|time|slack|headroom|leeway|space)\b[^<]*?(?:say|so|to|i\.e\.|meaning|making it|which makes it|that is)\s+(?P<v>{_V}.*)$")),
    ("set", re.compile(rf"^(?:please\s+)?(?:(?:{_V}|[a-z]+)\s+(?=(?:added|knocked|shaved|took|gave)\b))?(?:add|added|tack on|knock|knocked|shave|shaved|take|took|give|gave|subtract)\s+(?:{_V}|[a-z]+(?:\s+[a-z]+)?)\s+(?:to|onto|off|from)\s+(?P<s>.+?)[,;:(]?\s+(?:{RESULT_WORDS}|say)\s+(?P<v>{_V}.*)$")),
]


_ATTRIBUTE = re.compile(
    r"^\s*(?:the\s+)?(?:(?:change|switch|update|move)\s+(?:of|in|to)\s+)?(?:new\s+|updated\s+|current\s+|latest\s+|target\s+|planned\s+|expected\s+)?(?:date|day|time|value|number|figure|amount|hostname|host name|address|location|url|endpoint|ip|dns(?:\s+(?:entry|record|name))?)\s+(?:for|of)\s+",
    re.IGNORECASE,
)
_META_SUBJECT = {"preference", "choice", "pick", "default", "setting", "rule", "request", "plan", "idea", "suggestion", "swap", "call", "that", "it", "this", "update"}
_FOR_PHRASE = re.compile(r"<v>[^<]*?\b(?:for|on|of)\s+(?P<p>[^<]+)$")
_LEAD_TIME = re.compile(r"^(?P<d>these days|nowadays|currently|at the moment|right now|(?:(?:from|starting|as of|beginning|effective)\s+)?(?:(?:this|next|coming) (?:week|month|sprint|quarter|monday|tuesday|wednesday|thursday|friday|weekend)|today|tomorrow|tonight|"
                        r"(?:this|tomorrow|yesterday) (?:morning|afternoon|evening)|(?<=\s)(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|immediately))\s*,?\s+(?!(?:is|was|will be)\s)(?P<r>.+?)(?P<e>[.!]?)$", re.IGNORECASE)  # "Today is …": the time is the subject
_LEAD_WHEN = re.compile(r"^(?P<d>(?:when|while|whenever)\s+[^,<]{2,40}?),\s+(?P<r>.+?)(?P<e>[.!]?)$", re.IGNORECASE)
_LEAD_FOR = re.compile(r"^(?:for|on|in) (?P<p>(?:the )?[^,<]{2,40}?),\s+(?P<r>.+?)(?P<e>[.!]?)$", re.IGNORECASE)
_LEAD_COLON = re.compile(r"^(?P<h>[^:<]{2,40}):\s+(?P<r>\S.*)$")
# framing before what is stated: a report or agreement ("we agreed that", "as far as I know", "I only heard"),
# a leading circumstance ("After the reorg last week,", "Following the vendor delay,", "Whatever happens,"),
# an apology or aside before a colon ("I only heard at lunch, so sorry for the late notice: …")
_FRAME_REPORT = re.compile(
    r"^.{0,100}?\b(?:we|they|i|you|he|she|everyone|everybody|people|(?:the\s+)?[a-z]+(?:\s+[a-z]+)?)\s+"
    r"(?:have\s+|'ve\s+|all\s+|just\s+|finally\s+|only\s+|now\s+)*(?:agreed|decided|confirmed|said|announced|heard|learned|learnt|noticed|"
    r"realized|realised|know|think|believe|guess|understand|found out|were told|was told|got told|hear)\b,?\s+(?:that\s+)?(?P<r>\S.*)$",
    re.IGNORECASE,
)
_FRAME_CIRCUMSTANCE = re.compile(
    r"^(?:(?:after|following|given|with|because of|due to|thanks to|in light of|since)\s[^,<]{2,70}|whatever happens|no matter what|in any case|either way)"
    r",\s+(?P<r>\S.*)$"
    r"|^(?:after|following)\s+(?:[\w']+\s+){1,4}?(?=(?:the|our|my|we|they)\s)(?P<r2>.*)$"
    # a consequence after what caused it: "The failover happened, so the X is on V now"
    r"|^[^,<]{2,70},\s+so\s+(?P<r3>(?:the|our|my|this)\s.*|[a-z][\w.-]*\s+(?:will|is|are|goes|ships|has|now)\b.*)$"
    # a reminder inside a request: "While you're in the X code, keep in mind that …", "…, note that …"
    r"|^(?:[^,<]{2,80},\s+)?(?:please\s+)?(?:(?:keep|bear)\s+in\s+mind|note|remember)(?:\s+that)?\s+(?P<r4>\S.*)$",
    re.IGNORECASE,
)
_FRAME_COLON = re.compile(r"^(?P<h>[^:<]{2,140}):\s+(?P<r>\S.*)$")
# Kind: what the speaker says about themselves or their message before the statement, up to a comma, e.g. "now that I
# think of it, the nightly export has to finish by 06:30" and "this is worth writing down, the vendor contract renews on
# 12 May" (before, "think" and "worth" were words of the subject, and a later "The nightly export has to finish by V"
# was another subject). A segment that names the speaker (I, me, my) or speaks of the message ("this/that/it is …",
# "this matters") and holds no value; one that states a rule or preference of its own ("I'd rather …", "I never …") is
# not one (``_unframe`` checks). What speaks of the message is a judgement of it ("this is worth …", "it's important",
# "for the record"); "this is the build box, it has 32 GB of RAM" names the thing "it" then refers to, and a rest that
# opens with a pronoun ("I own the X service, it deploys …") keeps the head as its antecedent (``_unframe`` checks).
_OPENS_WITH_PRONOUN = re.compile(r"^(?:it|its|it's|they|they're|their|he|she|this|that|these|those|which)\b", re.IGNORECASE)
_FRAME_SPEAKER = re.compile(
    r"^(?P<h>(?:[^,<:;]{0,80}?\b(?:i(?![.\w])|i'm|i've|i'd|i'll|me|my)\b[^,<:;]{0,60}|(?:this|that|it)\s+(?:(?:is|'s)\s+(?:worth|important|key|crucial|relevant|good to know|for the record|just a note|a note)|matters|counts)\b[^,<:;]{0,50}))"
    r",\s+(?:and\s+|so\s+|but\s+)?(?P<r>\S.*)$",
    re.IGNORECASE,
)
# two statements in one sentence: "X is A, and Y is B", "X is A; also, Y is B", "X is A for m and B for n"
_CONJ = re.compile(r"\s*;\s*(?:(?:and|also|plus)\b,?\s*)?|,\s*(?:and|plus)\s+(?:also,?\s+)?|\s+and\s+(?:also,?\s+)?|,\s+", re.IGNORECASE)  # a bare comma: elliptic parts only
# a part that says the other one did not change: "…; ingest stays where it is", ", the rest is unchanged"
_UNCHANGED = re.compile(r"\s*[;,]\s*(?:but\s+|while\s+)?(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,3}\s+(?:stays|remains|is unchanged|are unchanged|doesn't change|does not change|keeps its value)(?:\s+(?:where it is|as it is|the same|unchanged|put))?(?=[.!]?$)", re.IGNORECASE)
# the request that opens a session ("I need the X service on the new scheduler", "Please get X working")
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:(?:i|we)\s+(?:really\s+|urgently\s+)?(?:need|want|would like|'d like|have to|must)\b(?!\s+(?:answers|replies|you to answer))"
    r"|(?:help me|let's|let us)\b(?!\s+not\b)"
    r"|(?:get|make|move|migrate|port|fix|build|implement|set up|deploy|refactor|bring|finish|upgrade|ship|investigate|debug|"
    r"pick up|take over|look into|sort out|clean up|tidy up|work on|carry on with|continue with)\s+(?:the|our|my|this|a|an)\b)",
    re.IGNORECASE,
)
_GOAL_RE = re.compile(r"^(?P<s>(?:[\w'-]+\s+){0,4}(?:goal|objective|aim|mission|main task|task|priority|focus)(?:\s+[\w'-]+){0,4}?)\s*(?:\bis\b|:|=|\bwill be\b|\bfor (?:this|the|today)\b[^:]*?\bis\b)\s+(?P<v>.{6,})$", re.IGNORECASE)
# goals said without the word "goal": "This session is about …", "What we're doing today: …"
_GOAL_ABOUT = re.compile(
    r"^(?:(?:this|the|today's|our)\s+(?:session|conversation|chat|work(?:ing session)?|week|morning|afternoon|sprint|day)(?:\s+today)?\s+is\s+(?:all\s+|mainly\s+|mostly\s+)?(?:about|for)"
    # Kind: the time or the main item named as what the work is about — "Today is all about the Q3 invoice import",
    # "First thing this morning: the flaky login test", "The one job for today is the mailer rewrite"
    r"|(?:today|tonight)\s+is\s+(?:all\s+|mainly\s+|mostly\s+)?about"
    r"|(?:the\s+)?(?:main|first|one|big|key|only)\s+(?:thing|item|job|topic)(?:\s+(?:today|for today|this week|this morning|on my list))?\s*(?::|\bis\b)"
    r"|what (?:we|i)(?:'re| are| will be| want to be)\s+(?:doing|working on|after|here for|trying to do)(?:\s+(?:in|during|for) (?:this|the) (?:session|conversation|chat))?(?:\s+today)?\s*(?:\bis\b|:)"
    r"|(?:today|in this session|this session),?\s+(?:we(?:'re| are| will be| will)?|i(?:'m| am))\s+(?:going to|here to|trying to|working on|focus(?:ing|ed)? on)"
    r"|(?:we|i)(?:'re| are| am|'m) here to"
    r"|(?:today's|this session's|the session's|our|my) (?:job|work|mission|plan)(?: for today| today| here| in this session)?\s*(?::|\bis\b)"
    # "The job for this session: …", "The plan for today is …", "The work of this session: …"
    r"|(?:the|our|my)\s+(?:job|work|mission|plan|assignment|aim)\s+(?:for|of|in)\s+(?:this|the|today's)?\s*(?:session|conversation|chat|day|today)\s*(?::|\bis\b))\s+(?P<v>.{6,})$",
    re.IGNORECASE,
)
# ownership said around the name: "Talk to Dana about X, they own it", "X is Dana's responsibility"
_OWN = re.compile(
    r"(?<!\bmy )(?<!\bour )(?<!\byour )(?<!\btheir )(?<!\bhis )(?<!\bher )(?<!\bits )\b(?:owns?|owned|owner|ownership|in charge|responsib\w*|'s (?:job|area|call|turf|baby))\b"
    r"|^<v>\s*'s(?:\s+(?:now|from now on|going forward|these days|from today))?$"  # "the X is Dana's now"
    r"|\b(?:the\s+)?(?:one|person|people|contact)\s+to\s+(?:call|ask|ping|page|contact)\b"
    r"|\b(?:ask|ping|contact|talk to|go(?:es)? to|goes through|reach out to)\b(?=.*\b(?:about|on|regarding|for)\s+(?:the|our|my)\b)"
    r"|\b(?:about|on|regarding|for)\s+(?:the|our|my)\b.*\b(?:ask|ping|contact|talk to|go(?:es)? to|reach out to)\b"
    r"|^(?:please\s+)?(?:send|forward|route|escalate|assign)\b.*\bto\s+<v>",
    re.IGNORECASE,
)
# "If the X breaks, call V" / "When the X is down, V is the one to ask": the X is what V answers for
_ABOUT_IF = re.compile(r"^(?:if|when|whenever)\s+(?P<x>(?:the|our|my)\s+[^,<;]+?)\s+(?:breaks|fails|goes down|is down|crashes|acts up|misbehaves|has (?:issues|problems)|needs (?:help|attention))\b")
_ABOUT = re.compile(r"\b(?:about|for|of|on|regarding)\s+(?P<x>(?:the|our|my)\s+[^,<;]+?)(?=,|;|$|\s+(?:they|he|she|who|which|go|goes|should)\b)")
# a trailing contrast with no value of its own: ", not the older one", ", rather than before"
_TRAILING_CONTRAST = re.compile(r",\s*(?:not|rather than|instead of)\b[^,<$€£\d]{0,40}?([.!]?)$", re.IGNORECASE)
#: value kinds that make a clause a fact even without a relation ("Expect the launch on May 15")
_TYPED = TYPED_KINDS


_MAKE_THAT = re.compile(r"^(?:please\s+)?(?:let's\s+)?(?:make|set|change|switch|bump|raise|lower)\s+(?:that|it|this)\s+(?:to\s+)?(?P<v><v>)(?:\s+(?:for|on)\s+(?P<s>.+))?$")


#: words that alone name no subject: headings, labels and generic nouns or verbs
_GENERIC_SUBJECT = {
    "definition", "scope", "argument", "description", "result", "status", "summary", "note", "phase", "step", "task",
    "depend", "scenario", "example", "output", "input", "usage", "overview", "context", "background", "item", "list",
    "section", "detail", "info", "thing", "stuff", "it", "once", "run", "write", "done", "next", "todo", "approval",
}
