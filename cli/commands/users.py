"""rqrag users add|list|remove: the people who may use a server, each with their own API key.

    rqrag users add alice --file users.json                 # prints alice's key once; keep it, it is not stored
    rqrag users add root --admin --file users.json          # an admin also changes the shared libraries
    rqrag users list --file users.json
    rqrag users remove bob --file users.json                # bob's key stops working at once
    rqrag users remove bob --file users.json --delete_data --config configs/serve/default.yaml
    rqrag serve --config configs/serve/default.yaml --users users.json

The file keeps, per user, a key id and a salted scrypt hash of the key, never the key (`serve/users.py`); it
is created readable by its owner only. A running server rereads it when it changes. `--delete_data` also deletes
what the server kept about the user (conversations, memories, private documents) from the stores the serve config
names (`serve/user_data.py`); `--config` takes the file `rqrag serve` takes, decoding keys and all. A name
removed and added again is a new person (a new identity): the earlier user's data is not theirs, and stays until a
`remove NAME --delete_data`, which deletes the data of every user that name has had.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.cli.commands import run_verb
from rqrag.config_loader import make_parser, parse


@dataclass
class UsersFileConfig:
    file: str = field(
        default="users.json",
        metadata={"help": "the users file `rqrag serve --users` reads, or a database URL (replicas share it)"},
    )


@dataclass
class UsersAddConfig(UsersFileConfig):
    admin: bool = field(default=False, metadata={"help": "may change the shared document libraries"})


@dataclass
class UsersRemoveConfig(UsersFileConfig):
    delete_data: bool = field(
        default=False,
        metadata={"help": "also delete their conversations, memories and private documents (needs --config)"},
    )


def _parser(config_type, prog: str, description: str, with_name: bool = True):
    parser = make_parser(config_type, prog=prog, description=description)
    if with_name:
        parser.add_argument("name", help="user name: 1-32 lowercase letters, digits, '_' or '-'")
    return parser


def add(argv: Sequence[str]) -> int:
    from rqrag.serve.users import UserFile, UsersError

    config, extra = parse(_parser(UsersAddConfig, "rqrag users add", "Add a user and print their new API key."), argv)
    try:
        key = UserFile(config.file).add(extra.name, admin=config.admin)
    except UsersError as error:
        print(f"rqrag users add: {error}", file=sys.stderr)
        return 1
    role = "admin" if config.admin else "user"
    print(f"added {role} {extra.name} to {config.file}. Their API key (shown once, not stored):", file=sys.stderr)
    print(key)
    return 0


def list_users(argv: Sequence[str]) -> int:
    from rqrag.serve.users import UserFile, UsersError

    (config, _) = parse(_parser(UsersFileConfig, "rqrag users list", "List the users.", with_name=False), argv)
    try:
        users = UserFile(config.file).users()
    except UsersError as error:
        print(f"rqrag users list: {error}", file=sys.stderr)
        return 1
    for user in users:
        role = "admin" if user["admin"] else "user"
        print(f"{user['name']}\t{role}\tkey rqrag_{user['key_id']}_…\tadded {user['created']}")
    return 0


def _serve_parser():
    """`rqrag users remove`'s options: its own, and the serve config's read exactly as `rqrag serve` reads them.

    A serve YAML (configs/serve/default.yaml) holds the decoding keys beside the serving ones, so the decoding
    settings are parsed too — only so that the same file loads — and left out of `--help`."""
    import argparse
    import dataclasses

    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.serve.serve_config import ServeConfig

    parser = make_parser(
        UsersRemoveConfig, DecodeConfig, ServeConfig, prog="rqrag users remove", description="Remove a user."
    )
    decoding = {f.name for f in dataclasses.fields(DecodeConfig)}
    for action in parser._actions:  # argparse keeps no public handle on an added option
        if action.dest in decoding:
            action.help = argparse.SUPPRESS
    parser.add_argument("name", help="the user to remove")
    return parser


def remove(argv: Sequence[str]) -> int:
    from rqrag.serve.users import UserFile, UsersError

    config, _decode, serve, extra = parse(_serve_parser(), argv)
    users = UserFile(config.file)
    try:
        owners = users.owners(extra.name)  # before the removal: every identity whose data is to go
        removed = users.remove(extra.name)
    except UsersError as error:
        print(f"rqrag users remove: {error}", file=sys.stderr)
        return 1
    print(f"{'removed' if removed else 'no user'} {extra.name} {'from' if removed else 'in'} {config.file}")
    if config.delete_data:
        from rqrag.serve.user_data import forget_user

        totals: dict[str, int] = {}
        for owner in owners:
            # Memories too when the config has them off now: they may have been on when the user told them.
            for what, count in forget_user(serve, owner).items():
                totals[what] = totals.get(what, 0) + count
        # Only now: had a deletion failed, the identities stay in the file and the command can be run again.
        users.forget_removed(extra.name)
        print("deleted " + ", ".join(f"{count} {what}" for what, count in totals.items()))
    return 0 if removed or config.delete_data else 1


def main(argv: Sequence[str] | None = None) -> int:
    verbs = {
        "add": ("add a user and print their new API key (once)", add),
        "list": ("list the users (names, roles, key ids; never keys)", list_users),
        "remove": ("remove a user (their key stops working); --delete_data also deletes what they kept", remove),
    }
    return run_verb("users", verbs, argv)


if __name__ == "__main__":
    sys.exit(main())
