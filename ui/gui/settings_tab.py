"""The first-run wizard (above the tabs) and the Settings tab (keys, re-run the wizard, personality editor).

The wizard shows on page load while the data dir has no finished setup (ui/gui/wizard.py holds the logic);
the Settings tab says where keys are kept, lists the saved ones masked, re-opens the wizard and edits the
personality (`<data dir>/personality.md`, read again on every turn, so a save applies to the next one).
Key fields are password inputs that are cleared after each finish; nothing here logs a value.
"""

from __future__ import annotations

from typing import Any

from core.config_user import ANSWER_STYLES
from core.secrets import mask
from core.system_prompt import DEFAULT_PERSONALITY, load_personality, save_personality
from ui.gui import wizard
from ui.gui.wizard import SetupDesk

MISSING = "Settings are not available in this GUI (no data dir was given)."
EMBEDDED_LABEL = "Use the embedded model (offline, small, nothing to install)"
CLOUD_LABEL = "Use a cloud provider (needs an API key)"
STYLE_LABELS = {
    "balanced": "Balanced",
    "concise": "Concise: short answers",
    "detailed": "Detailed: explanations and examples",
    "friendly": "Friendly: warm and conversational",
}


def build_wizard(gr: Any, desk: SetupDesk | None) -> dict[str, Any] | None:
    """Lay out the wizard (hidden until `attach` shows it); None without a desk."""
    if desk is None:
        return None
    c: dict[str, Any] = {"found": gr.State({})}
    with gr.Column(visible=False, elem_id="wizard") as c["box"]:
        gr.Markdown(
            "## Welcome to Daemon\nA few questions and the chat is ready. Everything stays on this machine."
        )
        c["skip"] = gr.Button("Skip: use the offline defaults", elem_id="wiz-skip", size="sm")
        gr.Markdown("### 1. About you")
        with gr.Row():
            c["name"] = gr.Textbox(label="Your name", elem_id="wiz-name", scale=2)
            styles = [(STYLE_LABELS[s], s) for s in ANSWER_STYLES]
            c["style"] = gr.Radio(
                styles, value="balanced", label="Answer style", elem_id="wiz-style", scale=3
            )
        _model_step(gr, c)
        gr.Markdown("### 3. Optional keys (leave empty to skip)")
        with gr.Row():
            c["keys"] = [
                gr.Textbox(label=label, type="password", elem_id=f"wiz-{name.lower()}")
                for name, label in wizard.OPTIONAL_KEYS.items()
            ]
        gr.Markdown("### 4. Your notes and code (optional)")
        c["vault"] = gr.Textbox(
            label="Obsidian vault folder", elem_id="wiz-vault", placeholder="/home/me/Notes"
        )
        c["repos"] = gr.Textbox(label="Git repositories, one per line", elem_id="wiz-repos", lines=2)
        c["finish"] = gr.Button("Finish", variant="primary", elem_id="wiz-finish")
    c["result"] = gr.Markdown("", elem_id="wiz-result")  # outside: it stays when the wizard hides
    return c


def _model_step(gr: Any, c: dict[str, Any]) -> None:
    gr.Markdown("### 2. Which model answers?")
    with gr.Row(equal_height=True):
        c["provider"] = gr.Radio(
            [EMBEDDED_LABEL, CLOUD_LABEL],
            value=EMBEDDED_LABEL,
            label="Model",
            elem_id="wiz-provider",
            scale=5,
        )
        c["rescan"] = gr.Button("Look for local servers again", elem_id="wiz-rescan", size="sm", scale=1)
    c["servers"] = gr.Markdown("", elem_id="wiz-servers")
    with gr.Group(visible=False, elem_id="wiz-cloud") as c["cloud"]:
        with gr.Row():
            names = [(label, name) for name, (label, _, _) in wizard.CLOUD_PROVIDERS.items()]
            c["cloud_name"] = gr.Dropdown(names, value="openai", label="Provider", elem_id="wiz-cloud-name")
            c["cloud_model"] = gr.Textbox(label="Model (empty: the suggested one)", elem_id="wiz-cloud-model")
        c["cloud_key"] = gr.Textbox(label="API key", type="password", elem_id="wiz-cloud-key")
        c["cloud_url"] = gr.Textbox(
            label="Server URL (only for a compatible service)", elem_id="wiz-cloud-url"
        )
    c["test"] = gr.Button("Test the connection", elem_id="wiz-test", size="sm")
    c["test_result"] = gr.Markdown("", elem_id="wiz-test-result")


def _choice(picked: str, found: dict[str, Any], cloud: tuple[str, str, str, str]) -> wizard.ProviderChoice:
    """The provider choice the radio and the cloud fields stand for."""
    if picked in found:
        kind, base_url, model = found[picked]
        from core.providers.discovery import KINDS, LocalServer

        label = next((k.label for k in KINDS if k.key == kind), kind)
        return wizard.local_choice(LocalServer(kind, label, base_url, (model,)), model)
    if picked == CLOUD_LABEL:
        return wizard.cloud_choice(*cloud)
    return wizard.embedded_choice()


def attach_wizard(gr: Any, app: Any, c: dict[str, Any] | None, desk: SetupDesk | None) -> Any:
    """Wire the wizard: shown on load when setup is not done, with the local servers found at that moment.
    Returns Finish's event (to chain the chat's model selector on), None without a wizard."""
    if c is None or desk is None:
        return None

    async def scan(current: str) -> tuple[Any, dict[str, Any], str]:
        servers = await desk.servers()
        found = wizard.local_labels(servers)
        choices = [EMBEDDED_LABEL, *found, CLOUD_LABEL]
        value = current if current in choices else EMBEDDED_LABEL
        lines = [f"- {s.label}: {', '.join(s.models) or 'no model installed'}" for s in servers if s.running]
        note = "Found on this machine:\n" + "\n".join(lines) if lines else "No local model server found."
        return gr.update(choices=choices, value=value), found, note

    async def on_load(current: str) -> tuple[Any, ...]:
        if not desk.needs_setup():
            return (*_wizard_shown(gr, False), gr.skip(), gr.skip(), gr.skip())
        return (*_wizard_shown(gr, True), *await scan(current))

    scan_outputs = [c["provider"], c["found"], c["servers"]]
    app.load(on_load, [c["provider"]], [c["box"], c["tabs"], *scan_outputs], show_progress="hidden")
    c["rescan"].click(scan, [c["provider"]], scan_outputs)
    if "rerun" in c:  # the Settings tab's "Run the setup wizard again"

        async def rerun(current: str) -> tuple[Any, ...]:
            saved = wizard.saved_answers(desk.data_dir)  # starts from what was saved, never from empty
            fields = (saved.name, saved.style, saved.vault, saved.repos)
            return (*_wizard_shown(gr, True), "", *fields, *await scan(current))

        saved_fields = [c["name"], c["style"], c["vault"], c["repos"]]
        outputs = [c["box"], c["tabs"], c["result"], *saved_fields, *scan_outputs]
        c["rerun"].click(rerun, [c["provider"]], outputs)
    c["provider"].change(lambda p: gr.update(visible=p == CLOUD_LABEL), [c["provider"]], [c["cloud"]])
    cloud = [c["cloud_name"], c["cloud_model"], c["cloud_key"], c["cloud_url"]]

    async def test(picked: str, found: dict[str, Any], *fields: str) -> str:
        choice = _choice(picked, found, (fields[0], fields[1], fields[2], fields[3]))
        return (await wizard.validate(choice, desk.validation_timeout_s)).message

    c["test"].click(test, [c["provider"], c["found"], *cloud], [c["test_result"]])
    return _wire_finish(gr, c, desk, cloud)


def _wire_finish(gr: Any, c: dict[str, Any], desk: SetupDesk, cloud: list[Any]) -> Any:
    key_names = list(wizard.OPTIONAL_KEYS)
    secret_fields = [c["cloud_key"], *c["keys"]]
    cleared = [""] * len(secret_fields)  # plain values: Gradio consumes an update dict when it applies it

    async def done(name: str, style: str, picked: str, found: dict[str, Any], *rest: str) -> tuple[Any, ...]:
        fields, keys, (vault, repos) = rest[:4], rest[4:-2], rest[-2:]
        answers = wizard.Answers(
            name=name,
            style=style,
            choice=_choice(picked, found, (fields[0], fields[1], fields[2], fields[3])),
            keys=dict(zip(key_names, keys, strict=True)),
            vault=vault,
            repos=repos,
        )
        outcome = await wizard.finish(desk, answers)
        if not outcome.ok:
            return (gr.skip(), gr.skip(), outcome.message, *[gr.skip()] * len(secret_fields))
        return (*_wizard_shown(gr, False), outcome.message, *cleared)

    inputs = [c["name"], c["style"], c["provider"], c["found"], *cloud, *c["keys"], c["vault"], c["repos"]]
    finished = c["finish"].click(done, inputs, [c["box"], c["tabs"], c["result"], *secret_fields])

    def skipped() -> tuple[Any, ...]:
        return (*_wizard_shown(gr, False), wizard.skip(desk).message)

    c["skip"].click(skipped, None, [c["box"], c["tabs"], c["result"]])
    return finished


def _wizard_shown(gr: Any, shown: bool) -> tuple[Any, Any]:
    """The wizard's box and the tabs: the wizard stands alone until it is finished or skipped."""
    return gr.update(visible=shown), gr.update(visible=not shown)


def build_settings_tab(
    gr: Any, desk: SetupDesk | None, wizard_parts: dict[str, Any] | None, tab: Any
) -> None:
    """The Settings tab, read afresh each time `tab` is opened."""
    if desk is None or wizard_parts is None:
        gr.Markdown(MISSING)
        return
    c: dict[str, Any] = {}
    gr.Markdown("### Setup")
    c["keys"] = gr.Markdown("", elem_id="settings-keys")
    c["rerun"] = gr.Button("Run the setup wizard again", elem_id="settings-rerun", size="sm")
    gr.Markdown(
        "### Personality\nHow Daemon speaks and behaves. Saved in your data dir; the next message uses it."
    )
    c["personality"] = gr.Textbox(show_label=False, lines=6, elem_id="personality")
    with gr.Row():
        c["save"] = gr.Button("Save personality", variant="primary", elem_id="personality-save")
        c["reset"] = gr.Button("Reset to the default", elem_id="personality-reset")
    c["status"] = gr.Markdown("", elem_id="personality-status")

    def reload() -> tuple[str, str]:
        return _keys_note(desk), load_personality(desk.data_dir)

    def save(text: str) -> str:
        save_personality(desk.data_dir, text)
        return "✓ Saved: the next message uses it." if text.strip() else "✓ Back to the default personality."

    def reset() -> tuple[str, str]:
        save_personality(desk.data_dir, "")
        return DEFAULT_PERSONALITY, "✓ Back to the default personality."

    c["save"].click(save, [c["personality"]], [c["status"]])
    c["reset"].click(reset, None, [c["personality"], c["status"]])
    wizard_parts["rerun"] = c["rerun"]  # attach_wizard shows the wizard and looks for servers again
    tab.select(reload, None, [c["keys"], c["personality"]], show_progress="hidden")


def _keys_note(desk: SetupDesk) -> str:
    """Where keys are kept and which are saved (masked)."""
    names = desk.secrets.names()
    saved = ", ".join(f"`{n}` {mask(desk.secrets.get(n))}" for n in names) if names else "none"
    return f"Saved keys: {saved}. They are kept in {desk.secrets.where()}; a set environment variable wins."
