# shellcheck shell=bash
# The agent CLIs of the contract test: npm package, pinned version, and how each is pointed at the
# local model server (scripts/contract/model_server.py). Sourced by scripts/agent-contract.sh.
#
# Pins: the version current on npm when the pin was last moved (`npm view <pkg> version`). Move a
# pin by editing this table after `scripts/agent-contract.sh --latest` ran clean with the new one.

CLIS=(claude codex gemini opencode copilot amp)

cli_package() {
	case $1 in
	claude) echo @anthropic-ai/claude-code ;;
	codex) echo @openai/codex ;;
	gemini) echo @google/gemini-cli ;;
	opencode) echo opencode-ai ;;
	copilot) echo @github/copilot ;;
	amp) echo @sourcegraph/amp ;;
	*) return 1 ;;
	esac
}

cli_pin() {
	case $1 in
	claude) echo 2.1.332 ;;
	codex) echo 0.171.0 ;;
	gemini) echo 0.61.0 ;;
	opencode) echo 1.18.33 ;;
	copilot) echo 1.0.102 ;;
	amp) echo 0.0.1790142911-g7618fb ;;
	*) return 1 ;;
	esac
}

# The wire protocol the server speaks to it (for the usage comparison).
cli_api() {
	case $1 in
	claude | opencode | copilot) echo anthropic ;;
	codex) echo responses ;;
	gemini) echo gemini ;;
	amp) echo none ;;
	esac
}

# Fake credentials: nothing here is a secret, and nothing leaves 127.0.0.1.
ANTHROPIC_FAKE_KEY=sk-ant-contract-fake-key
OPENAI_FAKE_KEY=sk-contract-fake-key
GEMINI_FAKE_KEY=contract-fake-gemini-key
CONTRACT_CLAUDE_MODEL=claude-sonnet-4-5-20250929

# cli_setup CLI HOME URL: writes the CLI's config files under its private HOME and prints the
# environment (NAME=value lines) that points it at the server at URL (http://127.0.0.1:PORT).
# With URL empty, the config says nothing about a server and no key is set: the "not logged in"
# case.
cli_setup() {
	local cli=$1 home=$2 url=$3
	mkdir -p "$home"
	echo "HOME=$home"
	echo "XDG_CONFIG_HOME=$home/.config"
	echo "XDG_DATA_HOME=$home/.local/share"
	echo "XDG_CACHE_HOME=$home/.cache"
	echo "XDG_STATE_HOME=$home/.local/state"
	case $cli in
	claude)
		echo "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
		echo "DISABLE_AUTOUPDATER=1"
		if [ -n "$url" ]; then
			echo "ANTHROPIC_BASE_URL=$url"
			echo "ANTHROPIC_API_KEY=$ANTHROPIC_FAKE_KEY"
			echo "ANTHROPIC_MODEL=$CONTRACT_CLAUDE_MODEL"
		fi
		;;
	codex)
		mkdir -p "$home/.codex"
		{
			echo 'check_for_update_on_startup = false'
			if [ -n "$url" ]; then
				echo 'model = "gpt-5.1-codex"'
				echo 'model_provider = "contract"'
				echo '[model_providers.contract]'
				echo 'name = "contract"'
				echo "base_url = \"$url/v1\""
				echo 'env_key = "CONTRACT_OPENAI_KEY"'
				echo 'wire_api = "responses"'
			fi
		} >"$home/.codex/config.toml"
		echo "CODEX_HOME=$home/.codex"
		[ -n "$url" ] && echo "CONTRACT_OPENAI_KEY=$OPENAI_FAKE_KEY"
		;;
	gemini)
		mkdir -p "$home/.gemini"
		local auth=''
		[ -n "$url" ] && auth='"auth": {"selectedType": "gemini-api-key"}, '
		# Folder trust stays at Gemini CLI's default (on): a person trusts a project with
		# GEMINI_CLI_TRUST_WORKSPACE=true, which the contract passes as the person's choice.
		cat >"$home/.gemini/settings.json" <<-EOF
			{"security": {${auth%, }},
			 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
			 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
		EOF
		if [ -n "$url" ]; then
			echo "GOOGLE_GEMINI_BASE_URL=$url"
			echo "GEMINI_API_KEY=$GEMINI_FAKE_KEY"
		fi
		;;
	opencode)
		if [ -n "$url" ]; then
			cat >"$home/opencode.json" <<-EOF
				{"autoupdate": false, "share": "disabled",
				 "model": "anthropic/$CONTRACT_CLAUDE_MODEL",
				 "provider": {"anthropic": {"options": {"baseURL": "$url/v1", "apiKey": "$ANTHROPIC_FAKE_KEY"}}}}
			EOF
		else
			echo '{"autoupdate": false, "share": "disabled"}' >"$home/opencode.json"
		fi
		echo "OPENCODE_CONFIG=$home/opencode.json"
		echo "OPENCODE_DISABLE_AUTOUPDATE=1"
		echo "OPENCODE_DISABLE_MODELS_FETCH=1"
		;;
	copilot)
		if [ -n "$url" ]; then
			echo "COPILOT_PROVIDER_BASE_URL=$url"
			echo "COPILOT_PROVIDER_TYPE=anthropic"
			echo "COPILOT_PROVIDER_API_KEY=$ANTHROPIC_FAKE_KEY"
			echo "COPILOT_MODEL=claude-sonnet-4.5"
		fi
		;;
	amp)
		# Amp's model is behind Amp's own server: a fake key gets it past the login prompt to
		# the network error, which proves the argv was accepted.
		[ -n "$url" ] && echo "AMP_API_KEY=sgamp_contract_fake_key"
		;;
	esac
}
