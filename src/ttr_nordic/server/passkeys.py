"""Passkeys (WebAuthn) for accounts: adding one to a signed-in account, and signing in with one.

Sign-in uses a discoverable credential (a resident key): the browser offers the passkeys it
holds for this site and the user picks one, so no user name is typed. Each challenge is kept
in the database (its SHA-256) until it is used once or expires, so any server process can
finish what another began. The relying party is the host name the page was opened at.

>>> rp_of("https", "localhost:8000")
('localhost', 'https://localhost:8000')
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .account_db import ChallengeRow, PasskeyRow, UserRow
from .accounts import AccountError
from .db import utcnow

RP_NAME = "Ticket to Ride: Nordic Countries"
CHALLENGE_TTL = timedelta(minutes=5)
#: The most passkeys one account keeps.
MAX_PASSKEYS = 10


def rp_of(scheme: str, host: str) -> tuple[str, str]:
    """The relying party id (the host name) and the expected origin of a page at ``host``."""
    hostname = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return hostname.strip("[]"), f"{scheme}://{host}"


def _digest(challenge: bytes) -> str:
    return hashlib.sha256(challenge).hexdigest()


def _client_challenge(credential: dict[str, Any]) -> bytes:
    """The challenge a credential answers (from its clientDataJSON), or an error."""
    try:
        client_data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        challenge: bytes = base64url_to_bytes(client_data["challenge"])
        return challenge
    except (KeyError, TypeError, ValueError) as exc:
        raise AccountError(400, "BAD_PASSKEY", "this is not a passkey's answer") from exc


class Passkeys:
    """Passkey ceremonies on one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _keep_challenge(self, challenge: bytes, purpose: str, user_id: str | None) -> None:
        now = utcnow()
        with Session(self.engine) as session, session.begin():
            session.execute(delete(ChallengeRow).where(ChallengeRow.expires_at < now))
            session.add(
                ChallengeRow(
                    challenge_hash=_digest(challenge), purpose=purpose, user_id=user_id, expires_at=now + CHALLENGE_TTL
                )
            )

    def _take_challenge(self, challenge: bytes, purpose: str, user_id: str | None) -> None:
        """Use a challenge once: refused if unknown, expired, for another purpose or account."""
        with Session(self.engine) as session, session.begin():
            row = session.get(ChallengeRow, _digest(challenge))
            if row is None:
                raise AccountError(400, "BAD_PASSKEY", "this passkey request expired: try again")
            session.delete(row)
            expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=utcnow().tzinfo)
            if row.purpose != purpose or row.user_id != user_id or expires < utcnow():
                raise AccountError(400, "BAD_PASSKEY", "this passkey request expired: try again")

    def registration_options(self, user_id: str, user_name: str, rp_id: str) -> str:
        """Options (JSON) for ``navigator.credentials.create``: a resident key, user verified."""
        with Session(self.engine) as session:
            existing = list(session.scalars(select(PasskeyRow.credential_id).where(PasskeyRow.user_id == user_id)))
        if len(existing) >= MAX_PASSKEYS:
            raise AccountError(409, "TOO_MANY_PASSKEYS", f"an account keeps at most {MAX_PASSKEYS} passkeys")
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_id=user_id.encode(),
            user_name=user_name,
            challenge=secrets.token_bytes(32),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in existing],
        )
        self._keep_challenge(options.challenge, "register", user_id)
        return options_to_json(options)

    def register(self, user_id: str, credential: dict[str, Any], rp_id: str, origin: str) -> str:
        """Verify a new passkey's answer and keep its public key; returns its id."""
        challenge = _client_challenge(credential)
        self._take_challenge(challenge, "register", user_id)
        try:
            verified = verify_registration_response(
                credential=credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin
            )
        except InvalidRegistrationResponse as exc:
            raise AccountError(400, "BAD_PASSKEY", f"the passkey was refused: {str(exc)[:120]}") from exc
        credential_id = bytes_to_base64url(verified.credential_id)
        try:
            with Session(self.engine) as session, session.begin():
                session.add(
                    PasskeyRow(
                        credential_id=credential_id,
                        user_id=user_id,
                        public_key=verified.credential_public_key,
                        sign_count=verified.sign_count,
                    )
                )
        except IntegrityError:
            raise AccountError(409, "PASSKEY_KNOWN", "this passkey is registered already") from None
        return credential_id

    def sign_in_options(self, rp_id: str) -> str:
        """Options (JSON) for ``navigator.credentials.get`` with any passkey of this site."""
        options = generate_authentication_options(
            rp_id=rp_id, challenge=secrets.token_bytes(32), user_verification=UserVerificationRequirement.PREFERRED
        )
        self._keep_challenge(options.challenge, "sign_in", None)
        return options_to_json(options)

    def sign_in(self, credential: dict[str, Any], rp_id: str, origin: str) -> str:
        """Verify a passkey's sign-in answer; returns its account's id."""
        challenge = _client_challenge(credential)
        self._take_challenge(challenge, "sign_in", None)
        credential_id = credential.get("id") if isinstance(credential.get("id"), str) else None
        with Session(self.engine) as session:
            row = session.get(PasskeyRow, credential_id) if credential_id else None
            if row is None:
                raise AccountError(401, "BAD_CREDENTIALS", "this passkey is not known here")
            try:
                verified = verify_authentication_response(
                    credential=credential,
                    expected_challenge=challenge,
                    expected_rp_id=rp_id,
                    expected_origin=origin,
                    credential_public_key=row.public_key,
                    credential_current_sign_count=row.sign_count,
                )
            except InvalidAuthenticationResponse as exc:
                raise AccountError(401, "BAD_CREDENTIALS", f"the passkey was refused: {str(exc)[:120]}") from exc
            row.sign_count = verified.new_sign_count
            row.last_used_at = utcnow()
            user_id = row.user_id
            session.commit()
        return user_id

    def count(self, user_id: str) -> int:
        with Session(self.engine) as session:
            return len(list(session.scalars(select(PasskeyRow.credential_id).where(PasskeyRow.user_id == user_id))))

    def user_exists(self, user_id: str) -> bool:
        with Session(self.engine) as session:
            return session.get(UserRow, user_id) is not None
