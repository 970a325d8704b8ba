"""Accounts administration from the command line (there is no admin HTTP endpoint).

    speech-admin create-project acme --usd 25
    speech-admin create-key acme --scopes speech
    speech-admin list-keys acme
    speech-admin revoke-key <key-id>
    speech-admin top-up acme --usd 10
    speech-admin usage acme
    speech-admin projects

The database is ``--database`` or ``TTS_DATABASE_URL`` (default: the embedded SQLite
ledger). Keys are printed once, when they are made; only their digest is stored.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from serve_app.accounts import SCOPES, AccountStore, UnknownProject
from serve_app.accounts.records import UsageResponse
from serve_app.settings import IngressConfig

UNITS_PER_USD = 10_000_000


def usd_to_units(text: str) -> int:
    """``"12.5"`` USD -> 125,000,000 deci-micro-USD; refuses what is not a whole unit."""
    try:
        value = Decimal(text) * UNITS_PER_USD
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not an amount: {text!r}") from None
    if value != value.to_integral_value() or value < 0:
        raise argparse.ArgumentTypeError(f"not a whole number of deci-micro-USD: {text!r}")
    return int(value)


def _scopes(text: str) -> tuple[str, ...]:
    scopes = tuple(s.strip() for s in text.split(",") if s.strip())
    if not scopes or set(scopes) - set(SCOPES):
        raise argparse.ArgumentTypeError(f"scopes are a comma list of {', '.join(SCOPES)}")
    return scopes


def _amount(args: argparse.Namespace) -> int:
    return int(args.amount if args.amount is not None else args.usd)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="speech-admin",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--database", help="sqlite:///PATH or postgresql://... URL")
    commands = parser.add_subparsers(dest="command", required=True)

    create = commands.add_parser("create-project", help="a new project, and a project key")
    create.add_argument("name")
    money = create.add_mutually_exclusive_group()
    money.add_argument("--usd", type=usd_to_units, default=0, help="starting balance in USD")
    money.add_argument("--amount", type=int, help="starting balance in deci-micro-USD")
    create.add_argument("--no-key", action="store_true", help="do not make a key")

    key = commands.add_parser("create-key", help="a new key for a project")
    key.add_argument("project", help="project name or id")
    key.add_argument("--scopes", type=_scopes, default=SCOPES, help="speech,usage (default)")

    keys = commands.add_parser("list-keys", help="a project's keys (ids only)")
    keys.add_argument("project")

    revoke = commands.add_parser("revoke-key", help="revoke a key by its id")
    revoke.add_argument("key_id")

    top_up = commands.add_parser("top-up", help="add balance to a project")
    top_up.add_argument("project")
    money = top_up.add_mutually_exclusive_group(required=True)
    money.add_argument("--usd", type=usd_to_units)
    money.add_argument("--amount", type=int)

    usage = commands.add_parser("usage", help="a project's usage and balance (JSON)")
    usage.add_argument("project")

    commands.add_parser("projects", help="every project with its usage (JSON lines)")
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    url = args.database or IngressConfig.from_env().database_url
    store = AccountStore.open(url)
    try:
        return _dispatch(store, args)
    except (UnknownProject, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()


def _dispatch(store: AccountStore, args: argparse.Namespace) -> int:
    if args.command == "create-project":
        project_id = store.create_project(args.name, _amount(args))
        print(f"project {args.name} {project_id}")
        if not args.no_key:
            print(f"key {store.create_key(project_id)}")
    elif args.command == "create-key":
        print(f"key {store.create_key(store.find_project(args.project), args.scopes)}")
    elif args.command == "list-keys":
        for record in store.keys(store.find_project(args.project)):
            state = "revoked" if record.revoked_at else "active"
            print(f"{record.key_id}\t{','.join(record.scopes)}\t{state}")
    elif args.command == "revoke-key":
        if not store.revoke_key(args.key_id):
            print(f"error: no active key {args.key_id}", file=sys.stderr)
            return 1
        print(f"revoked {args.key_id}")
    elif args.command == "top-up":
        store.top_up(store.find_project(args.project), _amount(args))
        print(json.dumps(_usage(store, store.find_project(args.project))))
    elif args.command == "usage":
        print(json.dumps(_usage(store, store.find_project(args.project))))
    elif args.command == "projects":
        for project in store.projects():
            print(json.dumps({"id": project.id, "name": project.name, **_usage(store, project.id)}))
    return 0


def _usage(store: AccountStore, project_id: str) -> dict[str, object]:
    return UsageResponse.of(store.usage(project_id)).model_dump()


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
