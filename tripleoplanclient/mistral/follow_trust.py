"""The trust a follow task works on (a stack operation, nodes moving):
opened by the start task while the caller's token is fresh (what it
started may outlast that token), published sealed in the start task's
answer (readers of the execution, any member of the project, never see
the trust id: ``auth``), unsealed by each run of the follow task and
closed once the follow is done, or by the configure task after it when
configuration follows (``last``).

``execution`` is the workflow execution running the action; none when
the action runs on its own (nothing follows it then).
"""

from tripleoplanclient.mistral import auth


def start(context, execution, minutes, begin, needed=True):
    """``begin()``'s answer, with a trust for ``minutes`` opened first and
    sealed into it; none outside a workflow, or when not ``needed``
    (nothing to follow). The trust is closed when ``begin`` fails."""
    caller = auth.Caller(context)
    trust = auth.open_trust(caller, minutes) if execution and needed \
        else None
    try:
        started = begin()
        if trust:
            started['trust'] = auth.seal_trust(caller, trust, execution)
    except BaseException:
        auth.close_trust(caller, trust)
        raise
    return started


def follow(context, execution, started, look):
    """``look(session)``'s answer: one look at what a start task began,
    on the trust it sealed into ``started`` (session None: the caller's
    token); the trust closed once the answer is done."""
    caller = auth.Caller(context)
    sealed = started.get('trust')
    trust = auth.unseal_trust(caller, sealed, execution) if sealed else None
    session = auth.trust_session(caller, trust) if trust else None
    result = look(session)
    if result.get('done') and not result.get('configure'):
        auth.close_trust(caller, trust, session=session)
    return result


def last(context, execution, started, work):
    """``work(session)``'s answer, on the trust the start task sealed
    (the follow task left it open for this last task), closed after."""
    caller = auth.Caller(context)
    sealed = started.get('trust')
    trust = auth.unseal_trust(caller, sealed, execution) if sealed else None
    session = auth.trust_session(caller, trust) if trust else None
    try:
        return work(session)
    finally:
        auth.close_trust(caller, trust, session=session)
