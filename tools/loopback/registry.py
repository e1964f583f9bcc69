"""The services, in start order.  A new service: one module with a
Service subclass, and one line here."""

from __future__ import annotations

from . import heat
from . import ironic
from . import keystone_service
from . import mistral
from . import postgres
from . import rabbitmq
from . import sshd
from . import swift
from .common import LoopbackError
from .service import Service

SERVICES: dict[str, Service] = {service.name: service for service in (
    postgres.Postgres(),
    keystone_service.Keystone(),
    swift.Swift(),
    rabbitmq.RabbitMQ(),
    # before Mistral, whose configuration names it when it runs
    sshd.Sshd(),
    mistral.Mistral(),
    heat.Heat(),
    ironic.Ironic(),
)}


def with_requirements(names: list[str]) -> list[str]:
    """names plus what they require, in start order."""
    wanted = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(SERVICES[name].requires)
    return [n for n in SERVICES if n in wanted]


def with_dependents(names: list[str]) -> list[str]:
    """names plus the services that require them, in start order."""
    wanted = set(names)
    changed = True
    while changed:
        changed = False
        for name, service in SERVICES.items():
            if name not in wanted and wanted & set(service.requires):
                wanted.add(name)
                changed = True
    return [n for n in SERVICES if n in wanted]


def check_requirements(name: str) -> None:
    """What the service requires answers (``start`` started it first)."""
    for needed in SERVICES[name].requires:
        if not SERVICES[needed].healthy():
            raise LoopbackError('%s: needs %s, which is not running '
                                '(start %s starts it)' % (name, needed, name))
