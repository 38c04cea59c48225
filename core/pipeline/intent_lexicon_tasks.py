"""Intent cues for doing things: technical help, creative work, the user's projects, general questions.

Also the combinations (cues that mean more together than apart) and the follow-up shape used by refinement.
See `core/pipeline/intent_cues.py` for how a cue scores.
"""

from __future__ import annotations

import re

from core.pipeline.intent_cues import (
    CASUAL,
    CREATIVE,
    EMOTIONAL,
    FACTUAL,
    GENERAL,
    META,
    PROJECT,
    TECHNICAL,
    TEMPORAL,
    Combo,
    Cue,
    make_cue,
)

_TECH_STRONG = (
    r"\b(?:python|javascript|typescript|java|kotlin|scala|in rust|rust (?:code|program|crate|compiler)|rustc|"
    r"cargo|crates|golang|c\+\+|c#|ruby|rails|php|perl|swift|"
    r"bash|zsh|shell|powershell|terminal|command line|cli|sql|mysql|postgres(?:ql)?|sqlite|mongo(?:db)?|"
    r"redis|elasticsearch|kafka|docker|container|kubernetes|k8s|kubectl|helm|git|github|gitlab|rebase|"
    r"merge conflict|linux|ubuntu|debian|fedora|macos|homebrew|wsl|api|apis|rest|graphql|grpc|json|yaml|"
    r"xml|regex|regular expression|react|vue|angular|svelte|next\.?js|node(?:\.?js)?|npm|yarn|pip|conda|"
    r"venv|virtual ?env(?:ironment)?|pandas|numpy|scipy|matplotlib|pytorch|torch|tensorflow|keras|sklearn|"
    r"cuda|gpu|cpu|bios|drivers?|firmware|html|css|div|flexbox|webpack|vite|eslint|nginx|apache|aws|s3|"
    r"ec2|gcp|azure|terraform|ansible|jenkins|oauth|jwt|ssl|tls|https?|dns|ip address|localhost|backend|"
    r"frontend|database|endpoint|function|method|variable|array|list comprehension|dictionary|dict|"
    r"hashmap|string|integer|boolean|pointers?|struct|async|await|promise|callback|threads?|threading|"
    r"mutex|deadlock|race condition|memory leak|recursion|algorithm|big o|compiler?|compil(?:e|es|ing)|"
    r"runtime|library|framework|dependenc(?:y|ies)|pytest|jest|unit tests?|debug(?:ger|ging)?|breakpoint|"
    r"syntax|wifi|wi-fi|router|bluetooth|printer|excel|spreadsheet|formula|vlookup|pivot table|"
    r"google sheets|vba|macro|chmod|sudo|ssh|vpn|firewall|vscode|vim|emacs|jupyter|dataframe|groupby|"
    r"datetime|timestamp|unicode|utf-8|encoding|kernel|reverse proxy|load balancer|exponential backoff|"
    r"borrow checker|garbage collect\w*|segfault|stack ?trace|traceback|one-liner|snippet|code|coding|"
    r"script|flag|port|server|query|schema|index|install(?:ing|ation)?|uninstall|upgrade|config(?:ure)?|"
    r"closures?|lambdas?|decorators?|generators?|iterators?|inheritance|polymorphism|interfaces?|oop|"
    r"constructor|enum|tuples?|hash(?:ing)?|linked list|binary (?:tree|search)|queue|stack|heap|sorting|"
    r"quicksort|merge sort|dynamic programming|memoi[sz]ation|generics?|scope|hoisting|coroutines?|"
    r"event loop|websockets?|sockets?|tcp|udp|cors|csrf|xss|sql injection|orm|virtual machine|vm|"
    r"cron(?: job)?|environment variables?|env vars?|symlinks?|permissions|for loop|while loop|"
    r"if statement|loops?|elements?|indexes|indices|null|repl|stdout|stderr|ios|android|firefox|chrome|"
    r"browser|extension|plugin|keyboard shortcut|shortcut|battery|github actions?|ci|flask|django|fastapi|"
    r"express|spring boot|laravel|dotnet|\.net|unity|unreal|godot|selenium|playwright|airflow|spark|"
    r"hadoop|snowflake|bigquery|tableau|power bi|blueprints?|disk space|hard drive|storage|ssd|ram|"
    r"operating system|os|mac|windows|iphone|ipad|pair|reboot|restart|update|driver|macbook|laptop|fan|"
    r"pc|computer|desktop|monitor|keyboard|mouse|trackpad|webcam|microphone|headphones|airpods|usb|"
    r"hdmi|charger|android|tablet|smart tv|modem|ethernet|dicts?|dedup\w*|duplicates|keys?|csv|parse|"
    r"diagnose|troubleshoot|zoom|slack|discord|spotify|outlook|gmail|powerpoint|photoshop|audio|mic|"
    r"webcam|glitch\w*|lagg?y?|lagging|buffering|page speed|website|webpage|web app|mobile|mp4|mp3|gif|png|"
    r"jpe?g|pdf|wav|zip|docx|xlsx|svg|webp|heic|mkv|mov|ffmpeg|imagemagick|latex|markdown|command|commands|"
    r"files|folders?|director(?:y|ies)|hidden files|chrome|firefox|safari|detached head)\b"
)
_ERROR_WORDS = (
    r"\b(?:error|errors|bug|bugs|buggy|exception|crash(?:es|ed|ing)?|segmentation fault|core dumped|"
    r"exit (?:code|status)|status code|\d{3} (?:error|bad gateway|not found|forbidden|unauthorized)|"
    r"bad gateway|permission denied|connection refused|timed? ?out|no such file|deprecat\w+|"
    r"(?:will not|does not|did not|cannot) (?:compile|build|install|start|boot|load|run|connect|import)|"
    r"fails? (?:to|with|when|on)|(?:keeps|kept) (?:crashing|failing|exiting|freezing|disconnecting|"
    r"dropping|restarting|hanging|cutting out|lagging|glitching|buffering)|freez(?:es|ing)|not (?:working"
    r"|loading|responding|connecting|"
    r"compiling)|stopped working|leak(?:s|ing)?|infinite loop|re-?renders?|no matching distribution|returns?"
    r"|slow|#\w+/?\w*!?)"
)

# fmt: off
TASK_CUES: tuple[Cue, ...] = (
    # technical_help: code, errors, commands, devices
    make_cue(TECHNICAL, "traceback", 3.0, r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+",
             raw=True),
    make_cue(TECHNICAL, "error_type", 2.0,
             r"\b[A-Z]\w*(?:Error|Exception|Fault)\b|\b(?:CrashLoopBackOff|ImagePullBackOff|OOMKilled|ENOENT|"
             r"EACCES|EADDRINUSE|ECONNREFUSED|SIGSEGV|SIGKILL|NaN)\b", raw=True),
    make_cue(TECHNICAL, "code_span", 1.5, r"`[^`]+`|\b\w+\.\w+\(|\b\w+\(\)", raw=True),
    make_cue(TECHNICAL, "file_name", 1.0,
             r"\b[\w/-]+\.(?:py|js|ts|tsx|jsx|java|go|rs|cpp|cc|h|hpp|rb|php|sh|ps1|yaml|yml|json|toml|ini|"
             r"cfg|sql|html|css|scss|ipynb|lock|gradle|xml|log|conf|dll|exe|jar)\b"),
    make_cue(TECHNICAL, "cli_flag", 0.8, r"(?:^|\s)--?[a-z][\w-]*\b"),
    make_cue(TECHNICAL, "command", 1.5,
             r"^\W*(?:sudo|pip3?|npm|npx|yarn|git|docker|kubectl|brew|apt(?:-get)?|cargo|cmake|gcc|"
             r"python3?|node|ssh|scp|curl|wget|chmod|chown|grep|awk|sed|rm|tar|systemctl|conda)\b"),
    make_cue(TECHNICAL, "tech_term", 0.9, _TECH_STRONG, cap=3),
    make_cue(TECHNICAL, "in_tech", 1.2,
             r"\bin (?:python|javascript|js|java|rust|go|c|c\+\+|c#|sql|bash|ruby|php|r|swift|kotlin"
             r"|typescript|"
             r"excel|google sheets|react|node|linux|windows|powershell)\b|\bin (?:a|the|my) (?:database|db"
             r"|table|"
             r"repo|container|script|terminal|query|dataframe|spreadsheet|cell|column)\b"),
    make_cue(TECHNICAL, "error_word", 0.8, _ERROR_WORDS, cap=2),
    make_cue(TECHNICAL, "how_to_do", 0.6,
             r"\bhow (?:do|can|would|should|to) (?:i |we |you )?(?:\w+ )?(?:install|configure|set up|setup"
             r"|fix|"
             r"debug|deploy|compile|run|import|export|convert|parse|reverse|sort|merge|undo|revert|rename|"
             r"update|upgrade|uninstall|connect|mount|format|center|align|query|join|loop|iterate|call|"
             r"enable|disable|speed up|handle|write a|diagnose|troubleshoot)\b"),
    make_cue(TECHNICAL, "write_code", 2.0,
             r"\b(?:write|show me|give me|generate|need)(?: me)? (?:a|an|some|the)? ?(?:\w+ ){0,2}(?:code"
             r"|script|"
             r"function|snippet|query|regex|command|class|method|program|one-liner|unit test|dockerfile)\b"),
    make_cue(TECHNICAL, "my_code", 1.4, r"\bmy (?:code|script|function|build|tests|query|laptop|computer|pc|"
             r"phone|mac)\b"),
    # creative_exploration: ideas, fiction, play
    make_cue(CREATIVE, "brainstorm", 2.0,
             r"\b(?:brainstorm\w*|brain storm|ideate|spitball|riff|dream up|daydream|worldbuild\w*|"
             r"world-build\w*)\b"),
    make_cue(CREATIVE, "ideas", 1.8,
             r"\b(?:come up with|think of|think up|suggest|give me|need|list|any|some|unusual|fun)\b.{0,30}"
             r"\b(?:ideas?|names?|titles?|themes?|concepts?|slogans?|taglines?|prompts?|plots?|twists?|"
             r"mechanics|puns?)\b"),
    make_cue(CREATIVE, "tell_story", 2.0,
             r"\b(?:tell|read) me (?:a|an|another) (?:\w+ ){0,2}(?:story|tale|fable|poem|legend|myth)\b"),
    make_cue(CREATIVE, "make_up", 1.2, r"\b(?:come up with|think up|dream up|make up|cook up)\b"),
    make_cue(CREATIVE, "ideas_for", 1.2, r"\b(?:ideas?|names?|a name|title|themes?|concept) for\b"),
    make_cue(CREATIVE, "creative_word", 1.2,
             r"\b(?:creative|creatively|inspiration|inspire|imaginative|whimsical|wild ideas|crazy ideas|"
             r"out of the box|original ideas|invent|cool name|rhyming|catchy)\b"),
    make_cue(CREATIVE, "imagine", 1.8,
             r"\b(?:imagine|imagining|pretend|suppose|supposing|hypothetically|hypothetical|what if|"
             r"what would happen if|in a world where|alternate (?:history|universe|reality|ending)|"
             r"thought experiment|role ?play|let us play)\b"),
    make_cue(CREATIVE, "write_piece", 2.0,
             r"\b(?:write|compose|draft|create|make up|pen|rewrite|retell|give me|generate|invent|design|"
             r"describe|dream up)\b.{0,40}\b(?:poem|poems|poetry|(?<!user )story|(?<!user )stories|tale"
             r"|fable|fairy tale|song|"
             r"lyrics|haiku|limerick|sonnet|rap|verse|screenplay|sketch|scene|dialogue|monologue|toast"
             r"|speech|"
             r"villanelle|ode|ballad|elegy|lullaby|jingle|anthem|hymn|serenade|couplet|epic|"
             r"eulogy|riddle|joke|slogan|tagline|character|characters|creature|monster|world|civilization"
             r"|city|"
             r"kingdom|planet|holiday|cocktail|game|costume|logo|myth|legend|prophecy|spell|letter from)"),
    make_cue(CREATIVE, "fiction_word", 0.8,
             r"\b(?:poem|poetry|haiku|limerick|sonnet|lyrics|short story|bedtime story|fairy tale|fable|"
             r"fiction|fantasy|sci-?fi|science fiction|steampunk|cyberpunk|dystopi\w+|utopi\w+|plot twist|"
             r"protagonist|villain|worldbuilding|fanfic\w*|screenplay|noir|mythical|dragon|wizard|alien|"
             r"unicorn|superhero|magic|mystery novel|short film|d&d|dnd|dungeons and dragons|tabletop|rpg"
             r"|elf|"
             r"orc|dwarf|quest|npc|villanelle|lullaby|ode|ballad)\b", cap=2),
    make_cue(CREATIVE, "write_a_thing", 1.0, r"^\W*(?:write|compose|pen)(?: me)? (?:a|an"
             r"|some) (?:\w+ ){1,3}(?:about|for|on)\b"),
    make_cue(CREATIVE, "name_it", 1.5, r"\bname (?:my|our|a|an|this|the|his|her) (?:new )?\w+"),
    make_cue(CREATIVE, "would_look_like", 1.0,
             r"\b(?:how|what) (?:would|could|might)\b.{0,60}\b(?:if|look like|be like|sound like|feel like"
             r"|change)\b"),
    make_cue(CREATIVE, "perspective", 1.8,
             r"\bas if you were\b|\bin the style of\b|\bfrom the (?:perspective|point of view) of\b"
             r"|\bthrough the eyes of\b"),
    make_cue(CREATIVE, "be_creative", 1.5, r"\b(?:be|get) creative\b|\bcreative writing\b"
             r"|\bwriting prompt\b"),
    # project_work: the user's own projects, tasks, deadlines
    make_cue(PROJECT, "my_project", 0.9,
             r"\b(?:my|our|the|this) (?:\w+ ){0,2}(?:project|projects|repo|repository|codebase|app|website|"
             r"site|startup|thesis|dissertation|manuscript|presentation|slides|deck|report|proposal|pitch|"
             r"launch|release|mvp|prototype|roadmap|backlog|sprint|milestones?|deadline|deliverables?|tasks?|"
             r"todo|to-do|tickets?|pr|pull request|feature|branch|grant|portfolio|business plan|landing page|"
             r"redesign|rebuild|migration|refactor|pipeline|service|clients?|invoice|okrs?|onboarding|"
             r"campaign|newsletter|spec|readme|docs|documentation|chapters?|paper|submission|tool|build"
             r"|section)\b",
             cap=3),
    make_cue(PROJECT, "work_term", 0.8,
             r"\b(?:deadlines?|due (?:date|by|on|tomorrow|today|friday|monday|next)|by (?:eod|end of (?:day"
             r"|week)"
             r"|the \d+(?:st|nd|rd|th))|milestones?|sprint|roadmap|backlog|standup|stand-up|kanban|jira"
             r"|trello|"
             r"asana|okrs?|kpis?|deliverables?|stakeholders?|status update|progress report|next steps?|"
             r"action items?|blockers?|blocked (?:on|by)|priorit\w+|todo|to-do|to do list|tickets?|scope|"
             r"mvp|v\d+(?:\.\d+)+|code reviews?|pull request|pr|merge request|changelog|release|launch|ship|"
             r"shipped|shipping|clients?|invoice|q[1-4]|eod|retro|grant|tasks?|deck|manuscript|project|"
             r"projects|proposal|acceptance criteria|requirements|user stor(?:y|ies)|specs?|features?|todos|"
             r"demo|investors?|co-?founders?|pricing|customers|revenue|business|rebrand|branding|changelog|"
             r"due (?:in|on|by|at|next|this)? ?(?:\d|january|february|march|april|may|june|july|august|"
             r"september|october|november|december)|estimate|remodel|renovation|checklist|beta|dashboard|doc|"
             r"content calendar|action items|open items|team meeting|meeting|hires|hiring|conference|keynote|"
             r"workshop|webinar|my progress|progress on|nonprofit|budget|user stor(?:y|ies)|checkout flow"
             r"|flow|"
             r"funnel)\b", cap=3),
    make_cue(PROJECT, "for_my_project", 1.2,
             r"\b(?:for|in|on|of) (?:my|our) (?:\w+ ){0,2}(?:app|project|site|website|startup|thesis|paper|"
             r"business|shop|store|company|team|product|game|tool|service|client|repo|codebase|book|course|"
             r"channel|podcast|blog)\b"),
    make_cue(PROJECT, "task_admin", 1.6,
             r"\bset (?:a|up a) reminder\b|\bremind me to\b|\badd (?:a |an |this |that |it )?(?:task|item"
             r"|todo|"
             r"reminder|to (?:my|the) (?:list|todo|tasks|calendar|board|backlog))|\bupdate (?:the|my|our) "
             r"(?:\w+ )?(?:changelog|readme|docs|ticket|roadmap|board|plan|tracker|status|backlog"
             r"|timeline)\b"),
    make_cue(PROJECT, "delegate", 1.4,
             r"\b(?:split|divide|share|delegate|assign|allocate) (?:up )?(?:the )?(?:\w+ )?(?:work|tasks"
             r"|workload|"
             r"responsibilities)\b|\bbetween (?:me and|the two|us)\b"),
    make_cue(PROJECT, "stuck_on", 1.2, r"\b(?:stuck|blocked) (?:on|with) (?:the|my|our|this)\b"),
    make_cue(PROJECT, "we_decided", 0.8, r"\b(?:decisions?|we (?:decided|agreed|settled|chose|made))\b"),
    make_cue(PROJECT, "working_on", 1.6,
             r"\b(?:i am|we are|i have been|we have been) (?:currently |still )?(?:working on|building"
             r"|developing|"
             r"writing|making|designing|shipping|launching|prototyping|migrating|refactoring|behind on"
             r"|organi[sz]ing|"
             r"planning|hosting|coordinating|running)\b"
             r"|\bi (?:have|need|got) to (?:present|submit|deliver|finish|ship|hand in|prepare|prep|send)\b"
             r"|\bhelp me (?:prepare|prep|get ready)\b"),
    make_cue(PROJECT, "continue", 2.0,
             r"\b(?:let us|can we|shall we|time to) (?:continue|pick up|get back to|resume|work on|finish"
             r"|go over|"
             r"review|plan|start on|tackle|finali[sz]e|wrap up|kick off|sync on|outline|draft|prep|prepare|"
             r"structure)\b|\bwhere (?:we|i) left off\b"
             r"|\bcontinue (?:working on|with|on) (?:the|my|our)\b|\bback to (?:the|my|our) (?:project"
             r"|task)"),
    make_cue(PROJECT, "plan_work", 1.4,
             r"\b(?:plan|planning|organi[sz]e|schedule|break down|outline|prioriti[sz]e|estimate|structure|"
             r"draft|prep|prepare|review)\b.{0,25}\b(?:my|the|our|this|next|a|me for) (?:\w+ ){0,2}(?:week"
             r"|day|"
             r"work|tasks?|project|sprint|launch|release|roadmap|thesis|schedule|milestones?|timeline|report|"
             r"presentation|meeting|standup|chapters?|deck|proposal|update|description)"),
    make_cue(PROJECT, "status", 1.2,
             r"\b(?:finished|completed|done with|wrapped up|shipped|merged|pushed|deployed|submitted|closed|"
             r"mark)\b.{0,30}\b(?:task|ticket|pr|feature|docs|draft|chapter|milestone|release|done|complete"
             r"|fix|"
             r"bug|bugfix|patch|changes|commit|code)\b"
             r"|^\W*(?:update|status|progress):|\b(?:is|are) (?:now )?(?:done|finished|complete|ready|merged|"
             r"shipped|live)\b"),
    make_cue(PROJECT, "whats_next", 1.8,
             r"\bwhat (?:should|do|can) (?:i|we) (?:work on|focus on|tackle|do|build|prioriti[sz]e|ship)"
             r"(?: \w+)? (?:next|today|first|now|this week)\b|\bwhat is (?:next|left|remaining|pending|"
             r"outstanding|blocking)\b|\bwhere (?:are|am) (?:we|i) (?:at|with|on)\b|\bhow far along\b"
             r"|\bnext (?:step|is)\b|\bnext up\b|\bup next\b|\bwhat (?:is|are) (?:the )?(?:next|left"
             r"|remaining|pending|"
             r"outstanding)\b|\bwhere did (?:we|i) (?:leave|stop|get to|end up)\b|\bwhat needs (?:doing"
             r"|to be done|to happen)\b|\bwhat (?:should|do|can) (?:i|we) (?:\w+ ){1,2}(?:next|first)\b"
             r"|\b(?:roof|this|that|which) (?:or|vs) \w+ first\b|\bor \w+ first\b"),
    # general: world knowledge and everyday how-to; weak cues, the fallback prior does most of the work
    make_cue(GENERAL, "knowledge", 0.6,
             r"\b(?:capital of|population of|history of (?:the|a)|"
             r"recipe|calories|symptoms?|weather|translate|convert|distance|how (?:many|much|far|tall|big"
             r"|old|"
             r"long) (?:is|are|was|were|does|do|in|should)|who (?:wrote|invented|discovered|painted|was"
             r"|is the)|"
             r"what (?:causes|does \w+ stand for)|how do you say|tips for|best (?:way|places?|time|books?"
             r"|movies?)|recommend|"
             r"is it (?:safe|healthy|bad|good|ok|okay|normal|legal)|can (?:dogs|cats|i eat|you eat)|"
             r"should i (?:buy|get|use)|why is the|what is the "
             r"best|what rhymes with)\b", cap=2),
    make_cue(GENERAL, "explain", 0.6,
             r"\b(?:explain|define|definition of|meaning of|what is the difference|difference between"
             r"|what is an?)\b"),
    make_cue(GENERAL, "why_question", 1.0,
             r"^\W*why (?:do|does|is|are|did)\b(?! (?:i|you|we|my|everyone|everybody|people|nobody)\b)"),
)
# fmt: on

# fmt: off
GENERAL_CUES: tuple[Cue, ...] = (
    make_cue(GENERAL, "how_it_works", 1.0, r"\bhow (?:do|does) (?!your\b)(?:an? |the )?(?:\w+ ){1,3}work\b"),
)
COMBOS: tuple[Combo, ...] = (
    Combo(CASUAL, "short_greeting", 1.8, ("casual_social:greeting", "casual_social:short")),
    Combo(TEMPORAL, "anchored_recall", 1.0, ("temporal_recall:past_anchor", "temporal_recall:past_self")),
    Combo(TEMPORAL, "dated_recall", 0.6, ("temporal_recall:period", "temporal_recall:past_self")),
    Combo(FACTUAL, "asked_about_person", 0.6, ("factual_recall:what_is_my", "factual_recall:my_attribute")),
    Combo(PROJECT, "recall_project", 1.0, ("factual_recall:remind_me", "project_work:work_term")),
    Combo(PROJECT, "my_work_item", 1.5, ("factual_recall:what_is_my", "project_work:work_term")),
    Combo(PROJECT, "asked_work_item", 1.0, ("factual_recall:personal_question", "project_work:work_term")),
    Combo(TEMPORAL, "past_goals", 1.0, ("temporal_recall:were_my", "temporal_recall:period")),
    Combo(TEMPORAL, "recall_past_doing", 1.2, ("factual_recall:remind_me", "temporal_recall:past_self")),
    Combo(TEMPORAL, "dated_question", 0.8, ("temporal_recall:past_question", "temporal_recall:period")),
    Combo(TEMPORAL, "personal_past", 1.0, ("temporal_recall:past_question", "temporal_recall:personal_date")),
    Combo(TEMPORAL, "told_when", 1.0, ("factual_recall:i_told_you", "temporal_recall:period")),
    Combo(TEMPORAL, "past_state", 1.0, ("factual_recall:what_is_my", "temporal_recall:past_anchor")),
    Combo(TECHNICAL, "how_to_tech", 0.8, ("technical_help:how_to_do", "technical_help:tech_term")),
    Combo(TECHNICAL, "explain_tech", 0.8, ("general:explain", "technical_help:tech_term")),
    Combo(TECHNICAL, "explain_code_word", 0.6, ("general:explain", "technical_help:vocab")),
    Combo(TECHNICAL, "error_in_tech", 0.8, ("technical_help:error_word", "technical_help:tech_term")),
    Combo(META, "summarise_chat", 1.5, ("meta_conversational:summarise", "meta_conversational:conversation")),
    Combo(EMOTIONAL, "feeling_and_event", 0.5,
          ("emotional_support:i_feel", "emotional_support:emotion_word")),
)
# fmt: on

# A turn that leans on the previous one: "and the second one?", "what about tomorrow", "why?".
FOLLOW_UP = re.compile(
    r"^\W*(?:and|but|also|so|then|plus|what about|how about|the (?:first|second|third|other|last|next|"
    r"previous) one|which one|like what|such as|for example|go on|continue|tell me more|elaborate|"
    r"what else|anything else|same (?:for|with|thing)|what do you mean|ok(?:ay)? (?:and|so|but))\b"
    r"|^\W*(?:why|why not|how so|really|huh|more|and|and then|such as|e\.?g\.?|for instance)\W*$"
    r"|\b(?:that one|the other one|the (?:first|second|third|last) one|those|them)\W*$",
    re.IGNORECASE,
)
DEICTIC = re.compile(r"\b(?:that|it|this|those|them|these|the one|one)\b")
