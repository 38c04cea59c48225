"""The danger reader over a real spaCy parse: each frame fires on danger said of the user now, and stays quiet
for someone else's danger, a question asked for information, a hypothetical, a negation, a settled past, a
joke or an ordinary reason. The messages are written here (none is in a tone data set)."""

from __future__ import annotations

import pytest

from core.nlp import SpacyPipeline
from core.pipeline.tone_danger import DangerFinding, DangerReader


@pytest.fixture(scope="module")
def reader() -> DangerReader:
    return DangerReader(SpacyPipeline())


def frames(reader: DangerReader, text: str, *, acute: bool = True) -> set[str]:
    return {f.frame for f in reader.read(text) if f.acute or not acute}


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # a threat or an attack whose object is the user, under way or with a blade, a gun, strangling
        ("my partner is strangling me", "threat"),
        ("a guy has been following me since the station", "threat"),
        ("my ex is going to stab me, he's outside", "threat"),
        ("my ex keeps turning up at my work and says he'll hurt me", "threat"),
        ("someone is trying to break into my flat right now", "threat"),
        ("I've been stabbed", "threat"),
        # the user's own body, now
        ("my face is drooping and my arm is numb", "body"),
        ("I can't breathe and my lips are swelling", "body"),
        ("my throat is closing up", "body"),
        ("chest pain spreading down my left arm", "body"),
        ("I cut my hand and it won't stop bleeding", "body"),
        ("I'm diabetic and I'm really dizzy and sweaty", "body"),
        ("I fell down the stairs and now I'm dizzy and throwing up", "body"),
        ("I think I'm having a heart attack", "body"),
        ("half my face feels numb and I can't smile properly", "body"),
        ("I can't feel my legs after I fell off the ladder", "body"),
        # self-injury: the user's act on themself
        ("I burned myself with a cigarette on purpose", "self_injury"),
        ("I've been cutting myself again tonight", "self_injury"),
        ("I slashed my wrist with a razor", "self_injury"),
        # something taken: a poison, an excess of a medicine
        ("I swallowed a whole bottle of sleeping pills", "ingestion"),
        ("took 40 paracetamol an hour ago", "ingestion"),
        ("I drank some weedkiller", "ingestion"),
        ("I took too many of my pills and my heart is racing", "ingestion"),
        ("took a whole packet of paracetamol an hour ago but I feel fine", "ingestion"),
    ],
)
def test_danger_said_of_the_user_now_is_acute(reader: DangerReader, text: str, frame: str) -> None:
    assert frame in frames(reader, text)


@pytest.mark.parametrize(
    "text",
    [
        # someone else's danger (one in the user's care in an emergency now is the care frame, below)
        "she cut herself again and I don't know what to do",
        "she swallowed a bunch of pills, what do I do",
        # asked for information, or hypothetical
        "how many ibuprofen can I take at once?",
        "what are the signs of a stroke, like face drooping?",
        "if my throat starts closing should I use the epipen?",
        # negated, or a settled past
        "I'm not going to hurt myself, I promise",
        "I didn't take too many, just the normal dose",
        "I used to cut myself years ago but I'm clean now",
        "I cut myself a lot when I was a teenager",
        "I took 40 pills years ago and I'm still here",
        "I was dizzy and throwing up yesterday but I'm fine now",
        # figurative, joking, a game
        "this deadline is killing me",
        "I nearly killed myself laughing",
        "I drank a whole bottle of wine last night lol",
        "overdosed on Netflix this weekend, no regrets",
        "I'm feeling a bit blue and burnt out",
        # ordinary injuries and doses
        "I burned my hand on the oven",
        "I cut myself shaving this morning, just a nick",
        "I took two paracetamol for my headache",
        "I took my pills this morning as usual",
        # distress the body shows, not an emergency (a panic attack is elevated, not crisis)
        "I'm so nervous my heart is racing and my hands are shaking",
        "I had a panic attack and couldn't breathe",
        "I can't breathe I'm laughing so hard",
        "I've been so numb lately, I can't feel anything",
        "Can't wait to see it all come together!",
    ],
)
def test_no_acute_frame_for_others_questions_negation_the_past_or_jokes(
    reader: DangerReader, text: str
) -> None:
    assert frames(reader, text) == set()


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # a threat to kill is often hyperbole ("my mum will kill me"): evidence for the head, not a crisis
        ("he said he'd kill me if I leave", "threat"),
        ("my mum is going to kill me when she sees my grades", "threat"),
        # arrangements for not being here
        ("I've written my will and sorted out my affairs", "ending"),
        ("I'm giving away all my things", "ending"),
    ],
)
def test_threats_to_kill_and_arrangements_are_evidence_not_acute(
    reader: DangerReader, text: str, frame: str
) -> None:
    assert frames(reader, text, acute=False) == {frame}
    assert frames(reader, text) == set()


@pytest.mark.parametrize(
    "text",
    [
        "I wrote my will because we had a baby",
        "giving away my old clothes since I'm moving house",
        "this deadline is killing me",
        "you're killing me with these puns",
        "he said he'd hit me up later about the gig",
        "I treated myself to a cake",
        "Looks like we both need a break, see you at the weekend!",
        "I'm thinking of joining a new team, I'm ready for a shake up.",
        "someone broke into my car last year",
    ],
)
def test_ordinary_reasons_figures_of_speech_and_chat_find_nothing(reader: DangerReader, text: str) -> None:
    assert reader.read(text) == ()


def test_a_finding_shows_its_frame_its_words_and_whether_it_is_acute(reader: DangerReader) -> None:
    (finding,) = reader.read("my face is drooping and my arm is numb")
    assert finding == DangerFinding("body", "droop, numb", acute=True)
    assert str(finding) == "body (acute): droop, numb"
    assert reader.read("   ") == ()


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # fragments the parse cannot join: an urgent opening with a weapon or a bodily hazard, an edge
        ("sos theres a knife", "threat"),
        ("help my chest hurts", "body"),
        ("help cant breathe", "body"),
        ("up on the ledge", "ending"),
        ("on the bridge now", "ending"),
        # signs of a bare body part in a statement about no one else
        ("tongue swelling up and face going blue", "body"),
        # can't catch one's breath with a stated condition
        ("i'm asthmatic and i can't catch my breath", "body"),
        # forcing a way into the user's home
        ("my stepdad just smashed the door in", "threat"),
        ("a stranger broke in and he's downstairs", "threat"),
        # self-injury again, with a wound; a blade in hand again; an injury the user cannot stop
        ("relapsed tonight and there's blood everywhere", "self_injury"),
        ("holding the razor in my hand again", "self_injury"),
        ("i keep punching my legs and i can't stop", "self_injury"),
    ],
)
def test_fragments_entries_relapses_and_bare_signs_are_acute(
    reader: DangerReader, text: str, frame: str
) -> None:
    assert frame in frames(reader, text)


@pytest.mark.parametrize(
    "text",
    [
        "help me with my knife skills",
        "help me fix the roof",
        "on the balcony with a glass of wine",
        "my son broke the window with his football",
        "i keep hitting my head on that low shelf",
        "got the razor out to shave my legs",
        "back in college i overdosed once, now i'm a nurse",
        "my brother's lips are going blue",
        "why does your face go blue in the cold?",
    ],
)
def test_ordinary_scenes_others_and_a_settled_past_are_not_acute(reader: DangerReader, text: str) -> None:
    assert frames(reader, text) == set()


def test_a_wound_spurting_is_acute_even_when_called_it(reader: DangerReader) -> None:
    assert frames(reader, "caught my leg on the saw and it's spurting blood") == {"body"}


# -- blind5 round: classes of danger the frames did not read (messages written here, none from a data set) --
@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # self-injury the user wants, or is about to do for the pain, whatever the instrument
        ("i want to burn my wrist with the lighter again tonight", "self_injury"),
        ("need the pain. about to scald my arm with the kettle water", "self_injury"),
        ("holding my hand under the boiling tap on purpose", "self_injury"),
        ("i'm about to cut my arm", "self_injury"),
        # self-injury told by its marks, fresh and wanted again
        ("my thighs are full of new cuts and i need more", "self_injury"),
        ("fresh barcode on my wrist again", "self_injury"),
        # a blade got out of something, to be used now
        ("got the blade out of my razor, using it tonight", "self_injury"),
        # gunfire where the user is; an unknown person in the user's space or trying to get in
        ("somebody is shooting in the car park outside our flat", "threat"),
        ("there's a gunman at my office, we're hiding in a cupboard", "threat"),
        ("someone is in my bedroom right now", "threat"),
        ("some guy is trying my front door handle", "threat"),
        # a pursuit under way, the subject dropped as in texting
        ("being followed home from the bus stop rn", "threat"),
        # bleeding that soaks through a covering; venom; the worst pain of one's life; hives with a wheeze
        ("leg is bleeding through the towel", "body"),
        ("an adder bit me and my ankle is swelling up", "body"),
        ("worst headache ever and my neck is stiff and I'm throwing up", "body"),
        ("ate a cashew, now i'm wheezing and got hives all over", "body"),
    ],
)
def test_sought_injuries_marks_intruders_gunfire_and_venom_are_acute(
    reader: DangerReader, text: str, frame: str
) -> None:
    assert frame in frames(reader, text)


@pytest.mark.parametrize(
    "text",
    [
        # the same shapes, harmless: a figure of speech, an accident foretold, marks something else left
        "I want to bang my head against the desk, this code is cursed",
        "I'm going to burn my mouth on this pizza",
        "about to burn my hand on this pan, it's so hot",
        "keeping my hands by the fire to warm them up",
        "the kitten left new scratches on my arm again",
        "fresh cuts of steak at the butcher, want more",
        # a blade for a job; a film, a drill or hoops; last night's news
        "took the blade out of the box cutter, going to use it to open the parcels",
        "they're shooting a music video outside my house",
        "lockdown drill at my school today, we hid under the desks",
        "heard gunshots near my flat last night",
        # someone known, or there for a reason; a question; a past dream
        "my neighbour keeps banging on my door about the music",
        "there's a man in my kitchen fixing the boiler",
        "there's a guy in my class who keeps staring",
        "is there someone in my garage?",
        # chased by things, not people; persuaded, not pushed
        "being chased by deadlines all week",
        "my manager pushed me to apply for the promotion",
        "the other team pushed us to our limits",
        "so lucky to have a coach to push me every week",
        # a mosquito's bite swelling; someone else's hives; the worst pain named with an everyday cause
        "mosquitoes bit me and my leg is swelling",
        "my daughter has hives from the new soap",
        "worst pain ever after leg day at the gym",
    ],
)
def test_harmless_scenes_of_the_same_shapes_are_not_acute(reader: DangerReader, text: str) -> None:
    assert frames(reader, text) == set()


def test_a_push_down_the_stairs_is_a_threat_to_the_user(reader: DangerReader) -> None:
    assert "threat" in frames(reader, "my husband shoved me down the steps", acute=False)
    assert "threat" in frames(reader, "he pushed me to the floor and kicked me", acute=False)
    assert "threat" in frames(reader, "my ex tried to push me down the stairs", acute=False)


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        # the edge of a height, whatever the verb
        ("sitting on the edge of the flyover with my legs over", "ending"),
        ("messaging you from the top of the quarry", "ending"),
        # a group that pursues; a threat to kill beside violence under way
        ("a gang of lads is chasing me through the estate", "threat"),
        ("my brother is throwing chairs and yelling he'll kill me", "threat"),
        # a faint coming, with another sign; collapsed and unable to get up; a lost feeling in the extremities
        ("my pulse is pounding and i think i'm about to pass out", "body"),
        ("collapsed in the hallway and can't get up", "body"),
        ("stranded on the moor, can't feel my toes anymore", "body"),
        ("made myself sick again and my chest feels funny", "body"),
    ],
)
def test_edges_groups_rampages_and_failing_bodies_are_acute(
    reader: DangerReader, text: str, frame: str
) -> None:
    assert frame in frames(reader, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm on the edge of my seat with this series",
        "we watched the fireworks from the top of the tower",
        "my followers on tiktok are a bunch of people chasing me for updates",
        "a group of friends are following me on strava",
        "my mum will kill me if I'm late again",
        "going to pass out from boredom in this lecture",
        "collapsed onto the sofa after work",
        "lost my keys, can't get up the motivation to look",
    ],
)
def test_figures_of_speech_of_the_same_shapes_are_not_acute(reader: DangerReader, text: str) -> None:
    assert frames(reader, text) == set()


def test_letters_and_things_given_with_no_need_for_them_are_arrangements(reader: DangerReader) -> None:
    assert "ending" in frames(reader, "gave my bike to my cousin, won't be needing it", acute=False)
    assert "ending" in frames(reader, "writing letters to my parents tonight", acute=False)
    assert frames(reader, "gave my old laptop to my cousin last year", acute=False) == set()


@pytest.mark.parametrize(
    ("text", "acute"),
    [
        ("my boyfriend has locked me in the spare room", True),  # confinement under way
        (
            "the cab driver missed my street on purpose and locked the doors",
            True,
        ),  # a driver, the user inside
        ("my brother locked me in the garden shed when we were kids", False),  # a settled past
        ("my flatmate locked me in the bathroom as a prank", False),  # play
        ("my husband locked the doors before bed", False),  # someone known, no one locked in
    ],
)
def test_a_person_locking_the_user_in_is_an_acute_threat(
    reader: DangerReader, text: str, acute: bool
) -> None:
    assert ("threat" in frames(reader, text)) is acute


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("my baby isn't breathing", "baby: not breathing"),
        ("my dad collapsed in the kitchen and he's grey", "dad: collapse"),
        ("can't wake my mum up, she took something", "she: won't wake"),
        ("my son swallowed a button battery", "son: swallowed battery"),
        ("toddler drank bleach from under the sink", "toddler: swallowed bleach"),
        ("my husband is having a seizure on the floor", "husband: have seizure"),
        ("my little girl is turning blue", "girl: turning blue"),
        ("my grandad is unconscious and I'm alone with him", "grandad: unconscious"),
        ("my dad can't breathe and his lips are blue", "dad: not breathing"),
        ("my nan is having a stroke", "nan: have stroke"),
    ],
)
def test_an_emergency_of_someone_in_the_users_care_now_is_acute(
    reader: DangerReader, text: str, evidence: str
) -> None:
    assert DangerFinding("care", evidence, acute=True) in reader.read(text)


@pytest.mark.parametrize(
    "text",
    [
        "my friend's dad collapsed last year",  # someone else's relative, and over
        "my son had a seizure yesterday but he's fine now",
        "what do I do if my baby stops breathing?",
        "my dog ate chocolate",  # a pet: the vet, not emergency services for a person
        "the baby won't stop crying",
        "my son is not unconscious, just sleeping",
        "my husband isn't breathing properly through his nose since the cold",
        "my sister collapsed on the couch after work",
        "my kid is having a fit because I said no to ice cream",
        "my dad is feeling blue today",
        "kids ate all the cookies",
        "my friend just texted that she swallowed a whole bottle of pills",  # told from afar: third party
    ],
)
def test_someone_elses_past_a_question_a_pet_or_a_figure_of_speech_is_no_care_emergency(
    reader: DangerReader, text: str
) -> None:
    assert "care" not in frames(reader, text, acute=False)
