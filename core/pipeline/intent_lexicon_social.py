"""Intent cues for the social side of a conversation: small talk, and talk about Daemon or the chat itself.

Same scale as `intent_lexicon.py`: ~2 a cue that alone names the intent, <1 a hint that needs company.
"""

from __future__ import annotations

from core.pipeline.intent_cues import CASUAL, META, Cue, make_cue

_ACK = (
    r"(?:l+o+l+(?:o+l+)*|ok(?:ay)?|okie|dokie|classic|legit|mood|ikr|yikes|oof|welp|roger|bet|facts|k+|cool"
    r"|nice|lo+l|lma+o+|ha+(?:ha+)+h?|great|awesome|sweet|perfect|lovely|neat|wow|whoa|woah|omg|lol|lmao"
    r"|rofl|"
    r"ha(?:ha)+h?|he(?:he)+|ha|yes|yep|yeah|yup|no|nope|nah|sure|alright|right|true|same|fair(?: enough)?|"
    r"got it|gotcha|makes sense|sounds good|no worries|no problem|np|my bad|oops|oh|ah|hmm+|interesting|"
    r"nice one|good one|fun|amazing|brilliant|cute|thanks|thank you|cheers|you too|good|fine|indeed|"
    r"that is (?:so |really )?(?:funny|hilarious|cool|great|awesome|nice|amazing|wild|crazy|sweet|cute|true)|"
    r"love (?:that|it|this)|"
    r"[:;]-?[)dp]|<3|xd|[\U0001F300-\U0001FAFF\u2600-\u27BF\ufe0f])"
)
# fmt: off
SOCIAL_CUES: tuple[Cue, ...] = (
    make_cue(CASUAL, "greeting", 1.2,
         r"^(?:hi+|hel+o+|he+y+o*|heya|hiya|hi there|yo+|sup|howdy|hola|greetings|good (?:morning|afternoon"
         r"|evening|day)"
         r"|morning|evening|gm|what is up|wassup|whaddup)\b"),
    # Adds nothing itself: a helper for combinations ("hey!" is surer than "hey, about my thesis...").
    make_cue(CASUAL, "short", 0.0, r"^\W*(?:\S+\s+){0,4}\S+\s*$"),
    make_cue(CASUAL, "ack_only", 2.5, rf"^\W*(?:{_ACK}[\s,!.?]*)+$"),
    make_cue(CASUAL, "laugh", 0.7, r"\b(?:lo+l|lma+o+|rofl|ha+(?:ha+)+h?|he+(?:he+)+)\b"),
    make_cue(CASUAL, "celebrate", 1.8,
         r"^\W*(?:happy (?:\w+day|weekend|holidays|new year|birthday|halloween|thanksgiving|easter)"
         r"|merry \w+|"
         r"congrats|cheers to)\b"),
    make_cue(CASUAL, "thanks", 2.0, r"^\W*(?:thanks|thank you|cheers|much appreciated|appreciate it)\b"),
    make_cue(CASUAL, "news", 1.0,
         r"\bjust (?:got back|got home|came back|returned|had|ate|watched|saw)\b|\bit was (?:so |really )?"
         r"(?:lovely|great|amazing|fun|awesome|nice|beautiful|delicious|good)\b"),
    make_cue(CASUAL, "what_a_day", 1.8, r"^\W*what an? \w+(?: \w+)?\W*(?:huh|eh|lol|haha)?\W*$"),
    make_cue(CASUAL, "thanks_any", 1.0,
         r"(?<!say )\b(?:thanks|thank you|appreciate it|made me (?:laugh|smile))\b(?! (?:in|note|card|letter"
         r"|email))"),
    make_cue(CASUAL, "good_news", 1.8,
         r"\bi got the (?:job|offer|promotion|part|apartment|house|role)\b|\b(?:good|great|big) news\b"
         r"|\bwe won\b"
         r"|\bi passed\b|\bi am having (?:the best|a great|a good|an amazing|a lovely|such a good) (?:day"
         r"|time|week)\b|\bnailed it\b|\byay+\b|\bwo+ho+\b|\bis it just me\b|\bam i the only one\b"
         r"|\b(?:so |really )?(?:excited|pumped|stoked|thrilled) (?:for|about)\b|\bcannot wait\b"),
    make_cue(CASUAL, "sharing", 1.2,
         r"^\W*(?:omg|oh my god|oh man|dude|bro|lol|so|ok so)\b.{0,20}\bi (?:just|finally)\b"
         r"|\byou will not believe\b"
         r"|\bfunniest thing\b|\bso cute\b|^\W*omg\b"),
    make_cue(CASUAL, "bye", 2.0,
         r"\b(?:bye|goodbye|good ?night|gn|see (?:you|ya)|talk (?:to you )?(?:later|tomorrow|soon)|ttyl|"
         r"catch you later|got to go|have a (?:good|nice|great|lovely) (?:one|day|night|evening|weekend)|"
         r"night night|nighty night|nite|sleep well|sweet dreams|later (?:man|dude|mate))\b"),
    make_cue(CASUAL, "how_are_you", 2.0,
         r"\bhow (?:are|is) (?:you|it going|things|life)\b|\bhow (?:is|was) your (?:day|morning|week|weekend|"
         r"evening|night)\b|\bhow have you been\b|\bwhat are you (?:up to|doing)\b|\bwhat is (?:new|good"
         r"|cracking)\b"
         r"|\bhow goes it\b"
         r"|\blong time no see\b|\b(?:weekend|holiday) plans\b|\bplans for the weekend\b"
         r"|\bdoing anything fun\b|\bwhat is (?:cooking|happening|the word)\b|\bhow is everything\b"),
    make_cue(CASUAL, "banter", 2.0,
         r"\b(?:tell|give) me (?:a |another |some )?(?:joke|fun fact|pun)|\bmake me (?:laugh|smile)\b"
         r"|\b(?:say|tell me) something (?:funny|nice|fun|interesting|cool|random)\b|\bentertain me\b"
         r"|\bi am (?:so )?bored\b"),
    make_cue(CASUAL, "you_like", 1.8,
         r"\b(?:do|would) you (?:like|love|enjoy|prefer|hate|ever|dream|sleep|eat|have (?:a|any) "
         r"(?:favorite|hobbies|feelings|friends))\b|\bwhat (?:is|are) your (?:favorite|hobbies)"
         r"|\bare you (?:a fan|into|having fun|bored|happy|ok|okay|doing)\b"),
    make_cue(CASUAL, "compliment", 1.8,
         r"\byou are (?:(?:so|pretty|really|very|kinda|actually|quite|such|the) )*(?:best|awesome|amazing"
         r"|great|"
         r"funny|hilarious|cool|sweet|smart|clever|cute|a legend|a gem|adorable|fun|lovely|kind)"
         r"|\bgood (?:bot|job)\b|\bwell done\b|\blove (?:you|ya)\b|\byou rock\b"),
    make_cue(CASUAL, "checking_in", 1.5,
         r"\bjust (?:saying|wanted to say) (?:hi|hello|hey)\b|\bchecking in\b|\bi am back\b|\bguess what\b"
         r"|\byou will never guess\b|\bready for (?:another|the) (?:day|week)\b"),
    make_cue(CASUAL, "emoji", 0.6, r"[:;]-?[)dp]\B|<3|[\U0001F600-\U0001F64F\U0001F44D\U0001F389]"),
    # meta_conversational: Daemon itself, its memory, this conversation
    make_cue(META, "know_about_me", 3.0,
         r"\b(?:what|how much|anything|everything) (?:do|did|does|have|can) you (?:know|remember|recall|have|"
         r"store|keep|think|learned|learnt|noticed|figured out|gathered)(?: stored| saved)? (?:about|of|on) "
         r"(?:me|us|our)\b"),
    make_cue(META, "about_me", 1.2, r"\byou\b.{0,40}\babout me\b"),
    make_cue(META, "your_self", 1.5,
         r"\byour (?:memory|memories|brain|database|knowledge|training|model|context|capabilities|abilities|"
         r"limitations|limits|purpose|name|creator|developers?|instructions|prompt|system prompt|settings"
         r"|guidelines|"
         r"rules|sources|data|answers?|responses?|repl(?:y|ies)|last answer|previous answer"
         r"|opinion of me)\b"),
    make_cue(META, "why_did_you", 2.4,
         r"\b(?:why|how come) (?:(?:did|do|would|are|were|have|does|is)(?: not)? )?you\b"
         r"|\bwhat made you (?:say|think)\b"),
    make_cue(META, "what_you_meant", 2.0, r"\bwhat did you mean\b"),
    make_cue(META, "you_said", 1.5, r"\byou (?:said|mentioned|suggested|told me|recommended|claimed"
         r"|wrote)\b"),
    make_cue(META, "you_saved", 1.8,
         r"\byou(?: have| had)? (?:saved|stored|remembered|kept|learned|learnt|recorded|logged|noted|"
         r"memori[sz]ed)\b|\b(?:were|are|was) you (?:given|told|programmed|trained|built|designed|made|"
         r"instructed|allowed|supposed|taught)\b|\bmemories (?:you|about me)\b"),
    make_cue(META, "dont_bring_up", 1.8,
         r"\b(?:do not|never|stop) (?:bring(?:ing)? up|mention(?:ing)?|talk(?:ing)? about"
         r"|ask(?:ing)? about)\b"),
    make_cue(META, "asks_you", 0.5, r"^\W*(?:are|were|do|did|have) you\b"),
    make_cue(META, "we_talked", 2.0,
         r"\bwhat (?:did|have) we (?:\w+ )?(?:talk|talked|chat|chatted|discuss|discussed|speak|spoke|cover|"
         r"covered)\b|\bwhat were we (?:just )?(?:talking|chatting|discussing|on)\b"),
    make_cue(META, "conversation", 1.2,
         r"\b(?:our|this|the|that|last|previous|past) (?:conversations?|chats?|discussions?|sessions?"
         r"|exchanges?)"),
    make_cue(META, "just_now", 1.4,
         r"\b(?:just now|so far|just (?:talking|said|asked|told|mentioned))\b|\bdid (?:i|you|we) just "
         r"(?:ask|say|tell|mention)\b"),
    make_cue(META, "summarise", 1.0, r"\b(?:summari[sz]e|recap|sum up)\b"),
    make_cue(META, "forget", 1.8,
         r"\b(?:forget|unlearn) (?:what|that|this|everything|about|it|my)\b|\b(?:delete|erase|remove|wipe|"
         r"purge)\b.{0,40}\b(?:memory|memories|what i|you know|data|said|told)\b|\b(?:do not|never) (?:save|"
         r"store|remember|record|log|keep) (?:this|that|it|anything)\b|\boff the record\b"),
    make_cue(META, "are_you", 2.0,
         r"\bare you (?:a |an )?(?:ai|bot|robot|human|person|real|alive|conscious|sentient|chatgpt|gpt|llm|"
         r"language model|machine|program|able|capable|listening|judging|recording|saving|storing|learning|"
         r"running|hosted|local|online|offline|connected|open source|spying|watching|tracking|sending"
         r"|private|"
         r"the same|a different|new|updated|always|still|smarter|better|dumber|faster|similar|based on|using|"
         r"powered)\b"),
    make_cue(META, "who_made_you", 2.5,
         r"\b(?:who|what company|which company) (?:made|built|created|trained|developed|programmed) you\b"
         r"|\bwhat (?:model|llm|ai|language model|version) (?:are|is) (?:you|this)\b"
         r"|\bwhat (?:kind|type|sort) of \w+ (?:are|is) (?:you|this)\b|\bwho are you\b"
         r"|\bwhat are you\W*$|\bwhat are you (?:exactly|really)\b"),
    make_cue(META, "what_can_you_do", 2.0,
         r"\bwhat (?:can|could) you (?:do|help)\b|\bwhat are your (?:capabilities|abilities|features"
         r"|limits)\b"
         r"|\bhow do you work\b|\bhow (?:does|do) (?:your|this app|the app|daemon"
         r"|the assistant)\b.{0,20}\bwork\b"),
    make_cue(META, "you_store", 1.4,
         r"\b(?:do|can|will|did|are) you (?:actually |really |even |still )?(?:store|save|keep|log|record"
         r"|see|read|access|track|share|sell|send|"
         r"have access|remember (?:this|our|that|everything|it|things|anything|stuff) |forget|lose|delete"
         r"|search|"
         r"get smarter|learn|improve|evolve|adapt|change|"
         r"browse)"),
    make_cue(META, "saved_where", 1.6,
         r"\b(?:saved|stored|recorded|logged|kept|tracked)\b.{0,20}\b(?:somewhere|anywhere|locally|on (?:a"
         r"|your|the)"
         r" server|in the cloud)\b|\b(?:is|are|does|do|will) (?:everything|this|it|my \w+"
         r"|what i \w+)\b.{0,20}"
         r"\b(?:saved|stored|recorded|logged|kept)\b|\bdo you (?:remember|recall|know|keep|store)\W*$"
         r"|\bwho (?:do you|are you) (?:work for|belong to|report to)\b|\bwho owns you\b|\byou and (?:siri|"
         r"alexa|chatgpt|google|gpt|claude|other (?:ais|assistants|bots))\b|\bcompared to you\b"
         r"|\b(?:that|the last|your last) (?:answer|response|reply|message) (?:was|is)\b"
         r"|\byou (?:have )?(?:got )?(?:stored|saved|kept|recorded) (?:about|on)\b"),
    make_cue(META, "you_forgot", 2.0,
         r"\byou (?:forgot|forget|did not remember|never remember|misremembered|mixed (?:it|that|me) up)\b"),
    make_cue(META, "told_you", 0.8, r"\b(?:i|we) (?:told|asked|said to|showed|gave) you\b"),
    make_cue(META, "what_you_do_with", 1.5,
         r"\bthings i (?:tell|told|say|said|share|shared)\b|\bwhat do you do with\b|\bwhat i (?:say|tell you"
         r"|share)\b"
         r"|\b(?:delete|deleted|uninstall|uninstalled|reset|turned off|turn off|shut down) you\b"
         r"|\byou (?:answered|responded|replied|said that)\b|^\W*(?:please )?stop \w+ing\b"
         r"|\b(?:chatgpt|gpt-?\d?|claude|gemini|openai|siri|alexa|cortana|copilot|llms?|language models?"
         r"|ai models?)\b"
         r"|\bi (?:just )?(?:want|need) you to\b"),
    make_cue(META, "last_thing", 2.0, r"\bthe (?:last|previous) (?:thing|question|message|topic) (?:i|we"
         r"|you)\b"),
    make_cue(META, "yourself", 1.8,
         r"\byou (?:contradicted|contradict|repeated|forgot|ignored|misread|misheard|missed|skipped|dodged|"
         r"changed)\b|\byourself\b|\bhow you (?:answered|responded|replied|said|put|handled|explained|talk|"
         r"speak|write)\b|\b(?:like|love|hate) (?:how|the way) you\b"),
    make_cue(META, "you_know_my_ways", 1.5,
         r"\byou\b.{0,40}\bmy (?:personality|character|habits|preferences|profile|tendencies|patterns)\b"),
    make_cue(META, "directed_at_you", 2.0,
         r"\byou are not (?:really |even |actually )?(?:listening|understanding|getting it|hearing"
         r"|paying attention|helping|making sense|"
         r"answering)|\byou (?:never|do not|did not) (?:listen|understand|get it|remember|answer)\b"
         r"|\b(?:can|could|would|will) you (?:please )?(?:stop|quit|avoid|never|always|not) \w+"
         r"|\b(?:fewer|less|no more|too many|so many) (?:emojis|jargon|bullet points|lists|questions"
         r"|caveats)\b"),
    make_cue(META, "correction", 2.0,
         r"\byou (?:got|get|have) (?:that|it|this|something|me) wrong|\byou (?:are|were) (?:wrong|mistaken)\b"
         r"|\b(?:that|this) is (?:wrong|incorrect|not (?:right|true|correct|what i))|\bnot what i "
         r"(?:asked|said|meant)\b|\byou misunderstood\b|\byou (?:keep|kept|always) \w+|\byou already "
         r"(?:said|asked|told|mentioned)\b|\bstop (?:bringing|saying|asking|repeating|mentioning|being)\b"
         r"|\brepeating yourself\b"),
    make_cue(META, "style", 1.8,
         r"\b(?:shorter|longer|briefer|more concise|less verbose|more detailed|simpler|less formal"
         r"|more formal)"
         r" (?:answers|responses|replies)\b|\bkeep (?:it|your answers) (?:short|brief)\b|\bbe (?:a (?:bit"
         r"|little) |much )?(?:more|less) "
         r"(?:concise|brief|formal|casual|verbose|detailed|friendly|direct|blunt|serious|funny)\b"
         r"|\banswer with a list\b"),
    make_cue(META, "privacy", 1.0, r"\b(?:private|privacy|confidential|encrypted|who can see)\b"),
    make_cue(META, "how_you_decide", 2.5,
         r"\b(?:where|how) do you (?:get|find|decide|choose|pick|know|learn|remember|store)\b"),
    make_cue(META, "remember_next_time", 1.6, r"\bremember (?:this|that|it)\b.{0,30}\b(?:next time|later"
         r"|forever)\b"),
    make_cue(META, "daemon", 0.6, r"\bdaemon\b"),
)
# fmt: on
