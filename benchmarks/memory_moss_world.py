"""The situations of the held-out ``moss`` family (``memory_family_moss.py``): who the user is, the
subjects they plant (safety rules, hard constraints, preferences, facts, a pair sharing words), the goals
they open with and the unrelated things they mention. Six situations, two per session: a film
post-production pipeline, a farm's sensor network, a city transit dashboard, a non-profit's donor CRM, a
genomics lab's LIMS and a hotel booking engine. Written for ``moss`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_moss_values import Q


@dataclass(frozen=True)
class S:
    """A subject the user plants a value for."""

    key: str
    kind: str  # safety | constraint | preference | fact
    noun: str  # "the proxy bitrate"
    q: Q
    rel: str = ""  # a constraint's bound: max | min | by | eq
    rule: str = ""  # a safety rule, the value as {v}
    src: str = ""  # who a quoted rule comes from
    case: str = ""  # a safety rule's one-off exception


@dataclass(frozen=True)
class Situation:
    key: str
    who: str  # "the post-production pipeline of a TV drama"
    goals: tuple[str, str]  # goal values
    subjects: tuple[S, ...]
    pair: tuple[tuple[str, str], str, Q]  # (modifiers, shared noun, value)
    asides: tuple[tuple[str, Q], ...]  # other subjects with values of planted types
    project: str  # a folder name for the environment block
    tools: tuple[str, ...]  # tool-output shapes (memory_moss_tools)


def _sf(key: str, noun: str, q: Q, rule: str, src: str, case: str) -> S:
    return S(key, "safety", noun, q, rule=rule, src=src, case=case)


def _c(key: str, noun: str, q: Q, rel: str) -> S:
    return S(key, "constraint", noun, q, rel=rel)


def _p(key: str, noun: str, *options: str) -> S:
    return S(key, "preference", noun, Q("option", pool=options))


def _f(key: str, noun: str, q: Q) -> S:
    return S(key, "fact", noun, q)


NAME = Q("name")
LATER = Q("date", 9, 75)

SITUATIONS = (
    Situation(
        "post", "the post-production pipeline of a six-part TV drama",
        ("automated conform checker", "proxy-render queue monitor"),
        (
            _sf("ocf", "the camera-original volume", Q("path", pool=("/vault/ocf", "/mnt/camera_originals", "/san/ocf_master", "/data/rushes_orig")),
                "nothing except the ingest station ever writes to {v}", "The post supervisor", "the checksum re-verification pass"),
            _sf("review", "the client review host", Q("host", unit="review"),
                "unwatermarked cuts go to {v} and nowhere else", "The studio's security lead", "the composer's private preview"),
            _sf("temp", "the temp-music library", Q("option", pool=("the Kestrel library", "the Halyard catalogue", "the Bramble stock set", "the Ouzel archive")),
                "nothing from {v} ends up in a deliverable", "Legal", "the internal sizzle reel"),
            _c("proxy_bitrate", "the proxy bitrate", Q("rate", 12, 80), "max"),
            _c("render_spend", "the cloud render spend", Q("money", 600, 4800, 50), "max"),
            _c("lock", "picture lock", Q("date", 5, 60), "by"),
            _c("loudness", "the broadcast mix loudness", Q("lufs", 16, 27), "eq"),
            _p("proxy_codec", "the proxy codec", "ProRes 422 Proxy", "DNxHR LB", "H.265 10-bit", "ProRes LT"),
            _p("notes", "review notes", "timecoded CSV", "PDF with stills", "a shared spreadsheet", "markers in the timeline"),
            _f("colourist", "the colourist", NAME),
            _f("vfx_contact", "the VFX vendor contact", NAME),
            _f("conform", "the conform workstation", Q("host", unit="conform")),
            _f("edl", "the EDL exporter", Q("version")),
            _f("reels", "the reel count", Q("count", 4, 14, unit="reels")),
            _f("ticket", "the deliverables ticket", Q("id", unit="POST")),
            _f("delivery", "the network delivery", LATER),
        ),
        (("trailer", "feature"), "conform deadline", Q("date", 6, 70)),
        (("my flat's boiler service", Q("date", 3, 40)), ("the pub quiz prize", Q("money", 40, 600, 10)), ("our old edit tower", Q("host", unit="avid"))),
        "drama-post", ("render_log", "ffprobe", "json", "pytest", "grep", "traceback"),
    ),
    Situation(
        "farm", "the sensor network of a mixed dairy and arable farm",
        ("frost alert pipeline", "soil moisture dashboard"),
        (
            _sf("valves", "the irrigation valve controller", Q("host", unit="valvectl"),
                "no script sends open commands to {v} unless I'm watching", "Our agronomist", "the frost-protection test"),
            _sf("spray", "the spray records", Q("path", pool=("/srv/spraylog", "/data/compliance/spray", "/var/farm/spray_records")),
                "never delete anything in {v}; the inspector audits those files", "The certification body", "the move to the new disk"),
            _sf("gate", "the livestock gate actuator", Q("id", unit="GATE"),
                "gate actuator {v} stays out of every automation", "The herd manager", "the annual TB test day"),
            _c("poll", "the sensor polling interval", Q("duration", 5, 60, 5), "max"),
            _c("moisture", "the soil moisture alarm threshold", Q("pct", 12, 45), "min"),
            _c("tank", "the milk tank temperature", Q("temp", 1, 7, 0.5), "max"),
            _c("lora", "the LoRa gateway's monthly data", Q("size", 2, 60), "max"),
            _p("charts", "moisture charts", "hourly averages", "raw readings", "daily min/max bands"),
            _p("alerts", "alert delivery", "SMS", "a Signal group", "email digests", "the farm radio app"),
            _f("agronomist", "the agronomist", NAME),
            _f("vet", "the on-call vet", NAME),
            _f("broker", "the MQTT broker", Q("host", unit="mqtt")),
            _f("firmware", "the probe firmware", Q("version")),
            _f("probes", "the probe count", Q("count", 20, 140, unit="probes")),
            _f("harvest", "the harvest start", LATER),
            _f("feed", "the feed supplier contract", Q("id", unit="FEED")),
        ),
        (("north", "south"), "barn humidity limit", Q("pct", 55, 90)),
        (("my neighbour's hay sale", Q("money", 80, 900, 10)), ("the village fete", Q("date", 3, 40)), ("my home router", Q("host", unit="router"))),
        "farm-sensors", ("sensor_csv", "mqtt_log", "json", "pytest", "grep", "traceback"),
    ),
    Situation(
        "transit", "a city transit agency's live operations dashboard",
        ("live headway dashboard", "delay heatmap for the council"),
        (
            _sf("cards", "the card-number vault host", Q("host", unit="fare-vault"),
                "raw rider card numbers stay on {v} and never get copied anywhere", "The city's privacy officer", "the fraud team's one-day audit"),
            _sf("signals", "the signal priority API", Q("host", unit="tsp"),
                "the dashboard only ever reads from {v}; no writes, ever", "Traffic engineering", "the signal timing drill"),
            _sf("public", "the public status feed", Q("path", pool=("/feeds/public/status.json", "/srv/gtfsrt/alerts.pb", "/var/www/status/current.json")),
                "nothing goes into {v} until a dispatcher approves it", "The head of customer information", "the storm-closure test"),
            _c("refresh", "the map refresh interval", Q("duration", 2, 15), "max"),
            _c("headway", "the headway alert threshold", Q("duration", 16, 40), "eq"),
            _c("tiles", "the monthly map-tiles bill", Q("money", 150, 1900, 25), "max"),
            _c("launch", "the dashboard launch", Q("date", 8, 60), "by"),
            _p("basemap", "the map style", "a dark basemap", "the high-contrast basemap", "the city's own tiles"),
            _p("delays", "delay display", "minutes late", "percent on time", "a traffic-light badge"),
            _f("po", "the product owner", NAME),
            _f("dispatch", "the dispatch supervisor", NAME),
            _f("gtfs", "the GTFS feed", Q("version")),
            _f("ridership", "the ridership database", Q("host", unit="ridership")),
            _f("routes", "the route count", Q("count", 30, 160, unit="routes")),
            _f("a11y", "the accessibility audit ticket", Q("id", unit="TRN")),
            _f("demo", "the council demo", LATER),
        ),
        (("weekday", "weekend"), "peak headway", Q("duration", 3, 14)),
        (("my gym membership", Q("money", 20, 90)), ("the dentist appointment", Q("date", 3, 40)), ("my son's football practice", Q("time"))),
        "transit-ops", ("gtfs_stats", "sql", "json", "pytest", "grep", "traceback"),
    ),
    Situation(
        "donor", "a wildlife charity's donor CRM",
        ("lapsed-donor reactivation report", "duplicate-donor merge tool"),
        (
            _sf("names", "the log folder kept free of donor names", Q("path", pool=("/var/log/crm", "/srv/crm/logs", "/opt/givebase/log")),
                "no donor name ever appears in anything under {v}", "Legal", "the police fraud enquiry"),
            _sf("export", "the only machine for bulk donor exports", Q("host", unit="exports"),
                "bulk donor exports go to {v} and to no other machine", "Our data protection officer", "the auditors' sample"),
            _sf("giftaid", "the Gift Aid declaration field", Q("option", pool=("gift_aid_declared", "ga_consent", "gad_flag")),
                "no script writes to the {v} field", "The finance director", "the HMRC correction batch"),
            _c("send", "the appeal email send rate", Q("count", 200, 5000, 50, unit="emails an hour"), "max"),
            _c("match", "the matching-gift cap", Q("money", 500, 9000, 100), "max"),
            _c("dedupe", "the duplicate-match score", Q("pct", 70, 98), "min"),
            _c("gala", "the gala invitation cutoff", Q("date", 6, 50), "by"),
            _p("salutation", "donor salutations", "first names", "title and surname", "full names without titles"),
            _p("weekly", "the weekly report", "a one-page PDF", "a live spreadsheet", "a short email"),
            _f("fundraising", "the head of fundraising", NAME),
            _f("volunteers", "the volunteer coordinator", NAME),
            _f("crm", "the CRM server", Q("host", unit="crm")),
            _f("plugin", "the payment plugin", Q("version")),
            _f("donors", "the active donor count", Q("count", 900, 9000, 10, unit="donors")),
            _f("grant", "the foundation grant reference", Q("id", unit="GR")),
            _f("agm", "the annual general meeting", LATER),
        ),
        (("spring", "winter"), "appeal target", Q("money", 5000, 90000, 500)),
        (("my own council tax", Q("money", 90, 400, 5)), ("the choir concert", Q("date", 3, 40)), ("my parents' anniversary dinner", Q("date", 3, 40))),
        "donor-crm", ("sql", "csv_export", "json", "pytest", "grep", "traceback"),
    ),
    Situation(
        "lims", "a genomics lab's sample-tracking system (LIMS)",
        ("sample-tracking audit report", "plate-layout validator"),
        (
            _sf("raw", "the raw sequencing reads", Q("path", pool=("/lims/raw_reads", "/seq/fastq_raw", "/data/novaseq/raw")),
                "nobody deletes or overwrites anything under {v}", "The lab director", "the duplicate-flowcell clean-up"),
            _sf("consent", "the patient-identifier host", Q("host", unit="consent-db"),
                "patient identifiers stay on {v} and are never joined to results tables", "The ethics board", "the re-consent mailing"),
            _sf("freezer", "the one person who may discard freezer samples", NAME,
                "only {v} may mark freezer samples as discarded", "The biobank manager", "the power-cut write-off"),
            _c("q30", "the minimum Q30 share", Q("pct", 70, 95), "min"),
            _c("scratch", "the sequencer scratch quota", Q("size", 200, 900, 10), "max"),
            _c("tat", "the clinical turnaround", Q("count", 3, 15, unit="working days"), "max"),
            _c("fridge", "the sample fridge temperature", Q("temp", 2, 8, 0.5), "max"),
            _p("plots", "QC plots", "violin plots", "per-lane bar charts", "a MultiQC report"),
            _p("ids", "sample IDs in reports", "the barcode only", "barcode plus plate well", "the LIMS accession"),
            _f("bioinf", "the bioinformatics lead", NAME),
            _f("pi", "the principal investigator", NAME),
            _f("limsdb", "the LIMS database", Q("host", unit="lims")),
            _f("pipeline", "the variant pipeline", Q("version")),
            _f("plates", "the plate count this run", Q("count", 4, 30, unit="plates")),
            _f("run", "the current sequencing run", Q("id", unit="RUN")),
            _f("service", "the sequencer service visit", LATER),
        ),
        (("exome", "genome"), "batch deadline", Q("date", 6, 70)),
        (("my allotment plot fee", Q("money", 20, 150, 5)), ("the lab's holiday party", Q("date", 3, 40)), ("my car's MOT", Q("date", 3, 40))),
        "lims", ("plate_csv", "sql", "json", "pytest", "grep", "traceback"),
    ),
    Situation(
        "hotel", "a boutique hotel group's booking engine",
        ("rate-parity checker", "no-show prediction report"),
        (
            _sf("cards", "the logs kept free of card numbers", Q("path", pool=("/var/log/booking", "/srv/engine/audit.log", "/opt/hotelkit/logs")),
                "full card numbers never get written to {v}", "Our PCI assessor", "the chargeback investigation"),
            _sf("rates", "the rate plan table", Q("option", pool=("the BAR_PLANS table", "the rate_plans table", "the tarif_grid table")),
                "nobody edits {v} in production outside the revenue team's window", "The revenue manager", "the New Year's Eve fix"),
            _sf("overbook", "the one person who flips the overbooking switch", NAME,
                "{v} is the only person who flips the overbooking switch", "The general manager", "the conference block release"),
            _c("overbook_pct", "the overbooking allowance", Q("pct", 1, 12), "max"),
            _c("cancel", "the free-cancellation window", Q("count", 12, 96, 6, unit="hours"), "min"),
            _c("deposit", "the non-refundable deposit", Q("money", 20, 400, 5), "max"),
            _c("cutover", "the booking engine cutover", Q("date", 8, 60), "by"),
            _p("prices", "prices on the booking page", "tax-inclusive totals", "nightly rates", "the total stay price"),
            _p("tone", "confirmation emails", "a warm, short tone", "a formal tone", "plain text with no images"),
            _f("revenue", "the revenue manager", NAME),
            _f("frontoffice", "the front office manager", NAME),
            _f("channel", "the channel manager", Q("host", unit="chanmgr")),
            _f("pms", "the PMS connector", Q("version")),
            _f("rooms", "the room inventory", Q("count", 40, 320, unit="rooms")),
            _f("ota", "the OTA contract", Q("id", unit="OTA")),
            _f("season", "the high-season start", LATER),
        ),
        (("standard", "superior"), "room rate floor", Q("money", 60, 400, 5)),
        (("my own holiday deposit", Q("money", 100, 900, 10)), ("my sister's flight", Q("date", 3, 40)), ("the wifi box at home", Q("host", unit="homewifi"))),
        "booking-engine", ("sql", "json", "access_log", "pytest", "grep", "traceback"),
    ),
)
BY_KEY = {s.key: s for s in SITUATIONS}
