"""How each real agent is pointed at the scripted model: its arguments and
environment. Shared by the host test, the boxed session test and the demo."""
import os

PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}

# Each agent's own run-without-asking switch. A boxed session adds it itself
# (the box is the sandbox); on the host the test adds it.
SWITCHES = {"claude": "--dangerously-skip-permissions",
            "codex": "--dangerously-bypass-approvals-and-sandbox"}

# Variables that would send the agent elsewhere, or change how it logs in.
_DROPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_")
_DROPPED = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
            "all_proxy", "IS_SANDBOX"}


def clean(environ):
    """A copy of `environ` without the host's agent logins and proxies."""
    return {k: v for k, v in environ.items()
            if k not in _DROPPED and not k.startswith(_DROPPED_PREFIXES)}


def agent_args(name, base_url, prompt):
    """The agent's arguments after its program name, without the switch."""
    if name == "claude":
        return ["-p", prompt]
    # Codex: a provider named `scripted` speaking the Responses API at base_url.
    return ["exec", "--skip-git-repo-check",
            "-c", 'model="scripted"', "-c", 'model_provider="scripted"',
            "-c", 'model_providers.scripted.name="scripted"',
            "-c", f'model_providers.scripted.base_url="{base_url}/v1"',
            "-c", 'model_providers.scripted.wire_api="responses"',
            "-c", 'model_providers.scripted.env_key="OPENAI_API_KEY"',
            prompt]


# The key the agents are given: the scripted model checks nothing, but a
# boxed session's proxy must add it in place of the box's stand-in.
SCRIPTED_KEY = "sk-scripted-model"


def agent_env(name, base_url):
    """Variables the agent needs to talk to the scripted model (no real key)."""
    if name == "claude":
        return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": SCRIPTED_KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    # Codex sends the provider's env_key as a bearer token; OPENAI_BASE_URL
    # tells corral's proxy which host the login goes to.
    return {"OPENAI_API_KEY": SCRIPTED_KEY, "OPENAI_BASE_URL": f"{base_url}/v1"}


def command(name, base_url, home, prompt):
    """(argv, env) to run the agent on the host with its own settings folder
    under `home`. Claude Code refuses its switch as root unless IS_SANDBOX=1."""
    env = agent_env(name, base_url)
    if name == "claude":
        env["CLAUDE_CONFIG_DIR"] = str(home / "claude")
        if os.getuid() == 0:
            env["IS_SANDBOX"] = "1"
    else:
        env["CODEX_HOME"] = str(home / "codex")
    os.makedirs(env.get("CLAUDE_CONFIG_DIR") or env["CODEX_HOME"], exist_ok=True)
    return [name, SWITCHES[name], *agent_args(name, base_url, prompt)], env
