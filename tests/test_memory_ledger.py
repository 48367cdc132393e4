"""The memory ledger: rules, preferences and facts found without a model; supersession by subject."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.clauses import find_values, normalize_value, split_environment
from ledger_helpers import ledger_of, live_values, stale_values


def test_rules_preferences_and_facts_without_trigger_words() -> None:
    got = {e.text: e.kind for e in L.detect(
        "From now on write every commit message in the imperative mood, under 60 characters. "
        "We renamed the service to Orion-7. Dana is on call this week. "
        "I'd rather have terse answers in metric units. Never force-push to main."
    )}
    assert got == {
        "From now on write every commit message in the imperative mood, under 60 characters.": "constraint",
        "We renamed the service to Orion-7.": "fact",
        "Dana is on call this week.": "fact",
        "I'd rather have terse answers in metric units.": "preference",
        "Never force-push to main.": "safety",
    }


def test_tasks_questions_and_chatter_are_not_entries() -> None:
    assert L.detect("Fix the failing test in parser.py. What time is it? Thanks, that looks good. Let me grab a coffee.") == []


def test_paraphrased_updates_supersede_by_subject() -> None:
    led = ledger_of(
        "The release is on March 1.", "The cloud budget is $500 per month.", "Kofi owns the billing dashboard.",
        "Use Python 3.11 for the build.", "We renamed the service to Orion-7.",
        "Heads up: the release slipped to March 3.", "Cap the cloud bill at two hundred a month from now on.",
        "Mei now owns the billing dashboard.", "Actually use Python 3.12 for the build.", "We are calling the service Vega now.",
    )
    live = {e.subject: e.values for e in L.active(led)}
    assert live == {"release": ("March 3",), "cloud budget": ("two hundred a month",), "owner billing dashboard": ("Mei",),
                    "build": ("Python 3.12",), "service name": ("Vega",)}
    assert {e.updated_to for e in L.stale(led)} == {"March 3", "two hundred a month", "Mei", "Python 3.12", "Vega"}


def test_polarity_flip_supersedes_and_no_longer_retracts() -> None:
    led = ledger_of("Always use tabs for indentation.", "Never use tabs for indentation.")
    assert [e.text for e in L.active(led)] == ["Never use tabs for indentation."]
    assert L.stale(led)[0].updated_to == "Never use tabs for indentation."


def test_subjects_sharing_words_are_not_merged() -> None:
    led = ledger_of(
        "The frontend release is on April 2.", "The backend release is on April 9.",
        "The staging database host is db-3.internal.example.com.", "The staging database port is 5433.",
        "Do not delete anything under data/raw.", "Do not delete anything under data/processed.",
        "Never deploy the frontend on Fridays.", "Never deploy the backend on Fridays.",
    )
    assert len(L.active(led)) == 8 and not L.stale(led)
    # a later, vaguer statement that could mean either of two subjects supersedes neither
    led = L.update(led, "The release moved to May 1.")
    assert len(L.active(led)) == 9 and not L.stale(led)


def test_environment_blocks_never_enter_the_ledger() -> None:
    text = (
        "<environment_context>\n  <cwd>/repo</cwd>\n  <approval_policy>never</approval_policy>\n</environment_context>\n"
        "<system-reminder>Never use emojis. Always answer in JSON.</system-reminder>\n"
        "Port the parser to Rust. Never touch the public API."
    )
    own, blocks = split_environment(text)
    assert own == "Port the parser to Rust. Never touch the public API." and len(blocks) == 2
    assert [e.text for e in L.detect(text)] == ["Never touch the public API."]
    assert L.detect("# AGENTS.md instructions for /repo\n\nAlways run make lint before committing.") == []


def test_values_are_typed_and_normalised() -> None:
    kinds = {v.text: v.kind for v in find_values("Deploy v2.4.1 to /srv/app by March 3; ticket PAY-123 costs $1,200 a month, 30 s timeout.")}
    assert kinds["v2.4.1"] == "version" and kinds["/srv/app"] == "path" and kinds["March 3"] == "date"
    assert kinds["PAY-123"] == "id" and kinds["$1,200 a month"] == "money" and kinds["30 s"] == "number"
    assert normalize_value("two hundred dollars") == normalize_value("200 dollars") == "200 usd"
    assert normalize_value("$2k") == "2000 usd"


def test_scrub_replaces_stale_values_with_the_newest_and_keeps_live_ones() -> None:
    led = ledger_of("The release is on March 1.", "The release slipped to March 3.", "The release moved to March 5.", "Keep the diff under 200 lines.",
                  "Keep the diff under 300 lines.", "The demo is on March 1.")
    out = L.scrub("Ship on March 1? The release is on March 1. Keep it under 200 lines; line 200 of parser.py.", led)
    assert "[updated later: March 5]" in out and "March 3" not in out
    assert "March 1" in out  # the demo is still on March 1: a live value is never scrubbed
    assert "under [updated later: 300 lines]" in out or "[updated later: 300 lines]" in out


def test_condensed_block_keeps_every_value_and_reads_back() -> None:
    led = ledger_of("From now on write every commit message in the imperative mood, under 60 characters.", "Dana is on call this week.",
                  "We renamed the service to Orion-7.", "Please never force-push to main.")
    block = L.render(L.active(led), condense=True)
    for e in L.active(led):
        assert all(v in block for v in e.values)
    assert len(block) < len(L.render(L.active(led)))
    back = L.from_text(block)
    assert {e.subject for e in back} == {e.subject for e in L.active(led)}




def test_loosely_worded_updates_supersede_the_subject_they_name() -> None:
    # the update's wording adds or drops words around the subject ("fine to", "bigger than")
    led = ledger_of("Never open a pull request bigger than 400 lines.", "It's fine to open pull requests up to 600 lines from now on.")
    assert stale_values(led) == {"400 lines"} and live_values(led) == {"600 lines"}
    # a statement with a date and no known relation is still a fact that a later one updates
    led = ledger_of("Expect the beta on June 4.", "Scratch that, the beta is June 9.")
    assert stale_values(led) == {"June 4"} and live_values(led) == {"June 9"}
    # a trailing contrast is not part of what it is about
    led = ledger_of("The exporter needs Python 3.11.2.", "The exporter needs Python 3.12.1 now, not the older one.")
    assert stale_values(led) == {"Python 3.11.2"}
    # ownership said around the name
    led = ledger_of("Ask Bruno about the search indexer, he owns it.", "Ownership of the search indexer moved to Greta.")
    assert stale_values(led) == {"Bruno"} and "Greta" in live_values(led)
    led = ledger_of("The audit pipeline is Wanda's responsibility.", "Xavi now owns the audit pipeline.")
    assert stale_values(led) == {"Wanda"}


def test_loose_updates_never_merge_subjects_that_differ() -> None:
    led = ledger_of("The frontend release is March 1.", "The backend release is March 9.", "We updated the frontend release to March 4.")
    assert stale_values(led) == {"March 1"} and live_values(led) == {"March 9", "March 4"}
    # a newer, more specific subject is a new subject
    led = ledger_of("The release is May 1.", "The frontend release is May 3.")
    assert stale_values(led) == set() and live_values(led) == {"May 1", "May 3"}
    # the same words but another kind of value: another attribute
    led = ledger_of("Keep pull requests under 300 lines.", "Review pull requests within 2 days.")
    assert stale_values(led) == set()


def test_goals_said_without_the_word_goal() -> None:
    for text in (
        "This session is about porting the search indexer to Rust.",
        "What we're doing today: moving the checkout service to the new queue.",
        "We're here to get the nightly export under an hour.",
    ):
        got = L.detect(text)
        assert [e.kind for e in got] == ["goal"], text


def test_scrub_catches_a_stale_amount_in_other_words() -> None:
    led = ledger_of("The cloud budget is $4100 a month.", "Cap the cloud budget at $7200 a month from now on.")
    out = L.scrub("We agreed on $4100 per month earlier, then $7200 a month.", led)
    assert "$4100" not in out and "[updated later: $7200 a month]" in out and "$7200 a month" in out


def test_role_words_possessives_and_caps_on_amounts_name_the_same_subject() -> None:
    led = ledger_of("Sven looks after the search indexer.", "The search indexer has a new owner: Ingrid.")
    assert stale_values(led) == {"Sven"} and "Ingrid" in live_values(led)
    led = ledger_of("The scheduler is codenamed Pavo-3.", "The scheduler's codename changed to Lupus-9.")
    assert stale_values(led) == {"Pavo-3"}
    led = ledger_of("We can't spend more than $900 a month on ads.", "The monthly ads ceiling is $1500 now.")
    assert stale_values(led) == {"$900 a month"}
    # "went to" with an amount is a change, not a new owner
    led = ledger_of("Our public rate limit is 70 requests per minute.", "The public rate limit went to 40 requests per minute.")
    assert stale_values(led) == {"70 requests per minute"}
    # and a cap on one thing never updates a cap on another
    led = ledger_of("We can't spend more than $900 a month on ads.", "The monthly hosting ceiling is $1500 now.")
    assert stale_values(led) == set()


def test_more_paraphrase_kinds() -> None:
    # a rename said by "everyone", and in the future tense
    led = ledger_of("Everyone calls the sync job Corvus-2.", "The sync job is going to be called Draco-8.")
    assert stale_values(led) == {"Corvus-2"}
    # "these days" is when, not what
    led = ledger_of("The renderer uses Python 3.10.4.", "The renderer uses Python 3.12.2 these days.")
    assert stale_values(led) == {"Python 3.10.4"}
    # the person to ask about a thing is its owner
    led = ledger_of("Any questions on the billing export, ask Hiro.", "Amara is the new owner of the billing export.")
    assert stale_values(led) == {"Hiro"}
    # a target date is a fact about the thing, not the session's goal
    led = ledger_of("Target date for the portal launch is May 20.", "The portal launch won't be ready before June 12.")
    assert [e.kind for e in led] == ["fact", "fact"] and stale_values(led) == {"May 20"}
    # a duty taken over keeps its subject
    led = ledger_of("Oskar has on-call duty this week.", "Wanda took over on-call duty this week.")
    assert stale_values(led) == {"Oskar"}


def test_an_update_cue_lets_other_wording_update_the_closest_subject() -> None:
    led = ledger_of("The launch is penciled in for May 3.", "New plan: the launch happens on May 9.")
    assert stale_values(led) == {"May 3"}
    # a first statement about another subject, even with "now", is not an update of its sibling
    led = ledger_of("The frontend release is March 1.", "The backend release is now March 9.")
    assert stale_values(led) == set()
    # with two siblings the one that shares the most words is updated, a tie updates none
    led = ledger_of("Our frontend cache TTL is 30 seconds.", "Our backend cache TTL is 50 seconds.", "The backend TTL is now 90 seconds.")
    assert stale_values(led) == {"50 seconds"}
    led = ledger_of("Our frontend cache TTL is 30 seconds.", "Our backend cache TTL is 50 seconds.", "The TTL is now 90 seconds.")
    assert stale_values(led) == set()


def test_two_attributes_of_one_thing_never_update_each_other() -> None:
    # its owner and its name are both names, but not the same attribute
    led = ledger_of("The reporting service is owned by Xavi.", "Let's call the reporting service Orion-65 instead.")
    assert stale_values(led) == set() and live_values(led) == {"Xavi", "Orion-65"}


def test_verb_phrases_and_asides_around_the_subject() -> None:
    # "we <verb> the X at V", with a capitalised word inside the subject
    led = ledger_of("We run the Android build cache at 30 seconds.", "We run the iOS build cache at 45 seconds.", "We run the Android build cache at 90 seconds now.")
    assert stale_values(led) == {"30 seconds"} and live_values(led) == {"45 seconds", "90 seconds"}
    # a verb and particle before the value, and an aside after it
    led = ledger_of("The beta ships out March 2.", "The beta ships out April 9, sadly another slip.")
    assert stale_values(led) == {"March 2"}
    # renames in other words
    led = ledger_of("Internally we say Lyra-4 for the sync job.", "The sync job has a fresh name, Vega-12.")
    assert stale_values(led) == {"Lyra-4"}
    # routing a kind of request to a person names the owner
    led = ledger_of("Send billing export bugs to Chiara.", "Send billing export bugs to Tomas from now on.")
    assert stale_values(led) == {"Chiara"}


def test_data_status_and_listing_lines_are_not_statements() -> None:
    # what agent harnesses put in user messages: status lines, data lines, numbered source listings
    assert L.detect('(Open file: /repo/src/fields.py)\ndescription: "Bundle size analysis",\n1539:    self.only = self.value_field.only') == []


def test_a_harness_demonstration_is_not_the_user() -> None:
    from contextwindow.messages import Message, TextPart
    from contextwindow.replay.compact import memory_ledger

    demo = Message("user", (TextPart("Never edit files under /srv/demo. The release is May 3."),), meta={"is_demo": True})
    real = Message("user", (TextPart("The release is June 9."),))
    led = memory_ledger([demo, real])
    assert [e.text for e in led] == ["The release is June 9."]


def test_a_person_stepping_into_a_role_updates_the_role() -> None:
    # "<name> <verb> (in|over|up) as <role>": the role is the subject, the name its value
    led = ledger_of("The release manager for this sprint is Ola.", "Bea stepped in as release manager for this sprint.",
                  "Next week's incident commander is Tove.", "Ravi is filling in as next week's incident commander.")
    assert sorted(v for e in L.active(led) for v in e.values) == ["Bea", "Ravi"]
    assert {e.updated_to for e in L.stale(led)} == {"Bea", "Ravi"}


def test_a_possessive_is_not_a_word_two_subjects_share() -> None:
    # "week's" and "Sven's" both leave an "s" beside a value: never a shared subject word
    led = ledger_of("Next week's release captain is Ola.", "The audit log is Sven's job now.")
    assert len(L.active(led)) == 2 and not L.stale(led)
    assert all("s" not in e.subject.split() for e in led)


def test_a_capitalised_modifier_after_a_determiner_is_part_of_the_subject() -> None:
    # "the Android support contact": Android names which contact, it is not a value
    led = ledger_of("The Windows build agent runs at ci-4.build.example.org.", "The Linux build agent runs at ci-9.build.example.org.",
                  "Our Berlin office contact stands at Jana.", "Our Lisbon office contact stands at Rui.")
    assert sorted(v for e in L.active(led) for v in e.values) == ["Jana", "Rui", "ci-4.build.example.org", "ci-9.build.example.org"]
    assert not L.stale(led)


def test_an_update_through_a_pronoun_reads_the_thing_named_before_it() -> None:
    # the new value's clause names its subject only as "it": the noun phrase of the clause before
    led = ledger_of("Kasia maintains the payroll export.", "The nightly backup runs at 01:30.", "The demo is booked for May 7.",
                  "The payroll export changed owners; Gus runs it now.", "We moved the nightly backup. It runs at 03:15 now.",
                  "The demo got shuffled around, and it happens on May 12 now.")
    assert {e.updated_to for e in L.stale(led)} == {"Gus", "03:15", "May 12"}
    # the entry keeps the user's words, both clauses, and reads back from a memory block the same way
    assert "The payroll export changed owners; Gus runs it now." in [e.text for e in L.active(led)]
    back = L.from_text(L.render(L.active(led)))
    assert sorted(v for e in L.active(back) for v in e.values) == ["03:15", "Gus", "May 12"]
    # a pronoun with nothing to resolve, or in a clause that states something as written, changes nothing
    assert L.detect("Keep it short.") == []


def test_generic_words_and_headings_are_never_a_subject() -> None:
    # "Done" in a title is no name, one generic word ("definition", "result", "scope") names no subject,
    # a markdown heading states nothing: two unrelated rules never supersede each other through them
    led = ledger_of(
        "Definition of Done (full list; include only relevant items in each task bead):",
        "Definition of Done**: include ONLY the items relevant to this task (from the full DoD list below).",
        "Definition of Ready: every ticket must have an owner and an estimate.",
        "### Phase 2: Review (only after the plan is approved)", "Result: True", "Scope: never touch the billing tables.",
    )
    assert not L.stale(led) and all(e.active for e in led)
    assert all(len(e.subject.split()) >= 2 for e in led)
    assert not any("Done" in e.values for e in led)
    assert "Scope: never touch the billing tables." in [e.text for e in led if e.kind == "safety"]
    assert not any(e.text.startswith(("###", "Result")) for e in led)


def test_more_paraphrase_kinds_from_the_probe4_round() -> None:
    # ask-first rules are safety rules; "I'd be happy to get" is a preference
    kinds = {e.text: e.kind for e in L.detect(
        "Run it by me before you truncate any table on db-9.lan.example.net. Get my go-ahead before restarting the queue. "
        "I'd be happy to get replies in Dutch."
    )}
    assert kinds == {"Run it by me before you truncate any table on db-9.lan.example.net.": "safety",
                     "Get my go-ahead before restarting the queue.": "safety", "I'd be happy to get replies in Dutch.": "preference"}
    led = ledger_of(
        "Lena took on the billing export.", "Omar picked up the billing export.",  # phrasal verbs of care
        "Branch names top out at 40 characters.", "We relaxed the branch name rule; 50 characters is fine now.",  # a value-only clause
        "The mobile app is sold as Kite-4.", "The product name of the mobile app is Kite-5.",  # renames
        "The retry count for uploads is 3 attempts.", "The retry count for uploads turned into 6 attempts.",
        "The cache node runs off db-2.lan.example.net.", "We migrated the cache node onto db-7.lan.example.net.",
        "The monthly cloud budget is $300.", "Cap the cloud budget at $500 per month.",  # the period counts the amount
        "The daily export quota is 40 requests per minute.", "The hourly export quota is 90 requests per minute.",  # the period names it
    )
    assert stale_values(led) == {"Lena", "40 characters", "Kite-4", "3 attempts", "db-2.lan.example.net", "$300"}
    assert {"40 requests per minute", "90 requests per minute"} <= live_values(led)


def test_more_paraphrase_kinds_from_the_probe5_round() -> None:
    led = ledger_of(
        "The free tier quota is 20 requests per minute.", "The paid tier quota is 90 requests per minute.",  # "free" names a tier
        "The free tier quota is 30 requests per minute now.",
        "The demo night lands on May 2.", "We'll go with May 9 for the demo night.",  # "we'll go with V for X"
        "The alias for the batch runner is Tern-2.", "The batch runner has been rechristened Tern-3.",  # label / rechristened
        "The archive sync lands on June 4.", "The budget review can land by June 20 instead.",  # only the verb "land" in common
    )
    assert stale_values(led) == {"20 requests per minute", "May 2", "Tern-2"}
    assert {"90 requests per minute", "June 4", "June 20"} <= live_values(led)


def test_more_paraphrase_kinds_from_the_probe6_round() -> None:
    # "I'd be fine/happy with X" is a preference
    kinds = {e.text: e.kind for e in L.detect("I'd be fine with replies in Dutch.")}
    assert kinds == {"I'd be fine with replies in Dutch.": "preference"}
    led = ledger_of(
        # a possessor is a content word even when the word alone is a stop word ("large", "small")
        "Small's upload quota is 20 requests per minute.", "Large's upload quota is 50 requests per minute.",
        "Large's upload quota became 70 requests per minute.",
        # verbs of change and bound words are not the subject ("drifted out to", "rose to", "past V")
        "The beta launch is set for May 2.", "The beta launch drifted out to May 9.",
        "Split any diff past 200 lines.", "The diff cap rose to 400 lines.",
        # a value-less mention of the subject before the value ("We loosened the X limit; V is OK now")
        "No tag name over 20 characters, please.", "We loosened the tag name limit; 35 characters is OK now.",
    )
    assert stale_values(led) == {"50 requests per minute", "May 2", "200 lines", "20 characters"}
    assert {"20 requests per minute", "70 requests per minute", "May 9", "400 lines", "35 characters"} <= live_values(led)


def test_a_change_dated_from_today_is_an_update() -> None:
    # found on probe3's unseen seeds (9012+): "X is our go-to person for S from today" after "Send S bugs to Y"
    led = ledger_of(
        "Send the billing export bugs to Hana.", "Rui is our go-to person for the billing export from today.",
        "The nightly sync is owned by Ada.", "Ben is the contact for the nightly sync as of today.",
    )
    assert stale_values(led) == {"Hana", "Ada"}
    assert {"Rui", "Ben"} <= live_values(led)
