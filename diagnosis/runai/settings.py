"""Run:ai configuration from the environment (pydantic-settings)."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from diagnosis.render.i18n import BASE_LANGUAGE, Translator


class ConfigError(ValueError):
    """Configuration that is missing or unusable, named so the user can fix it.

    Raised with `said(message_id, …)`, it carries its sentence of the `runai` catalogue, so that a
    face says it in its user's language (`in_language`); its text (`str`) is the English one.
    """

    def __init__(
        self, text: str, *, message_id: str | None = None, values: dict[str, str] | None = None
    ) -> None:
        super().__init__(text)
        self.message_id = message_id
        self.values = dict(values or {})

    @classmethod
    def said(cls, message_id: str, /, **values: str) -> ConfigError:
        return cls(_sentence(message_id, BASE_LANGUAGE, values), message_id=message_id, values=values)

    def in_language(self, lang: str) -> str:
        """The sentence in `lang` (the English text when it names no catalogue sentence)."""
        return _sentence(self.message_id, lang, self.values) if self.message_id else str(self)


def _sentence(message_id: str, lang: str, values: dict[str, str]) -> str:
    from diagnosis.runai.messages import CATALOGUE

    return Translator(CATALOGUE, lang)(message_id, **values)


class RunaiSettings(BaseSettings):
    """`RUNAI_URL`, `RUNAI_CLIENT_ID`, `RUNAI_CLIENT_SECRET` for the control plane; `KUBECONFIG` for Tier 2."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    runai_url: str | None = None
    runai_client_id: str | None = None
    runai_client_secret: SecretStr | None = None
    # The token grant (diagnosis.runai.auth): `auto` tries client credentials (control planes 2.20
    # and later), then the application grant of older planes.
    runai_token_grant: Literal["auto", "client_credentials", "app_token"] = "auto"
    # Tier 2: a kubeconfig path (the standard variable); unset means ~/.kube/config or in-cluster.
    kubeconfig: str | None = None
    # Tier 2 for several clusters: Run:ai cluster id -> kubeconfig context (diagnosis.runai.contexts).
    runai_kube_contexts: str | None = None
    runai_kube_contexts_file: str | None = None

    def require_control_plane(self) -> tuple[str, str, str]:
        """(url, client id, client secret), or ConfigError naming the first missing variable."""
        missing = [
            name
            for name, value in (
                ("RUNAI_URL", self.runai_url),
                ("RUNAI_CLIENT_ID", self.runai_client_id),
                (
                    "RUNAI_CLIENT_SECRET",
                    self.runai_client_secret.get_secret_value() if self.runai_client_secret else None,
                ),
            )
            if not value
        ]
        if missing:
            raise ConfigError.said("config.not_configured", missing=", ".join(missing))
        url = control_plane_url(str(self.runai_url))
        assert self.runai_client_id is not None and self.runai_client_secret is not None
        return url, self.runai_client_id, self.runai_client_secret.get_secret_value()


def control_plane_url(text: str) -> str:
    """RUNAI_URL without its trailing slash, or ConfigError saying each thing that is checked."""
    url = text.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        parts, port_ok = None, False
    if (
        parts is None
        or parts.scheme.lower() not in ("http", "https")
        or not parts.hostname
        or not port_ok
        or "@" in parts.netloc
        or parts.query
        or parts.fragment
        or any(character.isspace() for character in url)
    ):
        # The rule says each thing checked (runai catalogue `config.runai_url`).
        raise ConfigError.said("config.runai_url", got=repr(_shown(text.strip())))
    return url


def _shown(text: str) -> str:
    """The value as it may be echoed: a user:password@ part is never repeated."""
    scheme, separator, rest = text.partition("://")
    authority, slash, path = rest.partition("/")
    if separator and "@" in authority:
        return f"{scheme}://[credentials]@{authority.rpartition('@')[2]}{slash}{path}"
    return text


def load_settings() -> RunaiSettings:
    """The settings from the environment; a value that is not one of the allowed ones is a
    ConfigError naming the variable (never a traceback)."""
    try:
        return RunaiSettings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]).upper() if first.get("loc") else "a Run:ai setting"
        raise ConfigError.said("config.unusable", name=name, reason=str(first.get("msg"))) from None
