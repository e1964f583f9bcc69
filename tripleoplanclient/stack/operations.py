"""deploy, update, upgrade: plan, at most one render, stack, record.

Each command is one recorded step, in two calls:

1. ``prepare`` refuses early, before anything is written (no Heat, stack
   busy, unknown stack or plan, missing lifecycle file:
   ``stack.preconditions``, asked again by the action) and works out what
   the step would change; ``describe`` and ``Prepared.differences`` tell
   it (``--dry-run``, and the question before an update or upgrade);
2. ``execute`` writes only the plan objects that changed (one pass) and
   hands the deploy workflow in Mistral what it wrote: the action there
   records the step (before Heat is asked for anything), renders only
   when a rendering input changed, and creates or updates the stack, as
   for any client of the workflow (``mistral.stack_step``); the command
   follows the events (unless --no-wait) and records the outcome it sees
   (``stack.execution``).

A step's environment list and files are the plan's from the moment it is
recorded, whatever Heat makes of them: ``update`` applies the plan as it
stands, and the history says what each stack operation did.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import templates as templates_mod
from tripleoplanclient.record import log
from tripleoplanclient.record import open_step
from tripleoplanclient.record import sources
from tripleoplanclient.record import steps
from tripleoplanclient.stack import preconditions

LIFECYCLE_DIR = layout.LIFECYCLE_DIR
lifecycle_path = layout.lifecycle_path
# Seconds to wait for Heat's preview through Mistral (Mistral's own RPC
# timeout usually ends it sooner).
_PREVIEW_WAIT = 900


class Services:
    """What the steps talk to, built by the command.

    :param store: record.plan_store.PlanStore
    :param heat: heatclient v1 client (None: no Heat configured)
    :param workflows: workflows.executions.Workflows
    :param renderer: workflows.plans.PlanRenderer or None (--no-render)
    :param recorder: workflows.plans.Recorder (a plan the command creates)
    :param follower: stack.events.StackFollower
    :param progress: line -> stderr
    """

    def __init__(self, store, heat, heat_url, swift_url, workflows, renderer,
                 follower, progress, recorder=None, config_waiting=None):
        self.store = store
        self.heat = heat
        self.heat_url = heat_url
        self.swift_url = swift_url
        self.workflows = workflows
        self.renderer = renderer
        self.recorder = recorder
        self.follower = follower
        self.progress = progress
        # sleep and clock of the configuration's follower (tests)
        self.config_waiting = config_waiting


class Options:
    def __init__(self, timeout=240, wait=True, force=False, validate=True,
                 config='auto', tags=None, skip_tags=None, limit=None,
                 forks=None, config_timeout=240, validations=None):
        self.timeout = timeout          # minutes, for Heat and for waiting
        self.wait = wait
        self.force = force
        # the deploy action's checks before Heat is asked (plan validate)
        self.validate = validate
        # the servers' configuration after Heat (record.configs.MODES),
        # ansible-playbook's options, and its time in minutes
        self.config = config
        self.tags = tags
        self.skip_tags = skip_tags
        self.limit = limit
        self.forks = forks
        self.config_timeout = config_timeout
        # the pre hook's record (--run-validations), kept with the step
        self.validations = validations


def _stack(services, plan, rows=None):
    """The stack of ``plan`` or None (``status.recorded``: by the id
    ``rows`` recorded); refuses when there is no Heat."""
    if services.heat is None:
        raise exceptions.CommandError(
            'No orchestration (Heat) endpoint: add one to the catalog or set '
            'orchestration_endpoint_override in clouds.yaml. Nothing was '
            'changed.')
    return status.recorded(services.heat, plan, rows, services.heat_url)


class Prepared:
    """One deploy / update / upgrade, worked out before anything is written.

    ``change`` is None when the plan does not exist yet and the step begins
    by creating it (deploy --templates). ``rows`` and ``head``: the plan's
    history and what the step builds on (None then).
    """

    def __init__(self, action, plan, files, remove, stack, rows, head,
                 change, lifecycle=None, with_templates=False, listing=None,
                 resent=(), unread=(), stage=None):
        self.action = action
        self.plan = plan
        self.files = files
        self.remove = list(remove)
        self.stack = stack
        self.rows = rows
        self.head = head
        self.change = change
        self.lifecycle = lifecycle
        self.stage = stage
        self.with_templates = with_templates
        self.listing = listing
        # Recorded user files read again: their sources changed.
        self.resent = list(resent)
        # Recorded sources left alone (sources.Unread): told, never read.
        self.unread = list(unread)

    @property
    def creates_plan(self):
        return self.change is None

    def differences(self):
        """Lines that tell what the step changes in the plan as it is."""
        state, change = self.head.state, self.change
        lines = ['%s of stack %s, against the plan after step %d:'
                 % (self.action.capitalize(), self.plan, len(self.rows))]
        before, after = state['environments'], change.environments
        diff = ['  - %s' % e for e in before if e not in after]
        diff += ['  + %s' % e for e in after if e not in before]
        if [e for e in before if e in after] != [e for e in after
                                                 if e in before]:
            diff.append('  (order changed)')
        resent = 'its local source changed since it was last read'
        diff += ['  ~ %s (%s)' % (p, resent if p in self.resent
                                  else 'content changed')
                 for p in change.changed if p in state['files']]
        if change.release:
            tree = [p for p in change.added + change.changed
                    if p not in state['files'] and p not in self.resent]
            diff.append('  templates: %s -> %s (%d files added or changed, '
                        '%d removed)' % (
                            templates_mod.name(state.get('release')) or
                            'unrecorded', templates_mod.name(change.release),
                            len(tree), len(change.deleted)))
        if self.lifecycle:
            diff.append('  + %s (this step only, before the list)'
                        % self.lifecycle)
        return lines + (diff or ['  (the same environment list)'])


def read_history(store, plan, listed):
    """``(rows, head)`` of an existing plan, else ``(None, None)``.

    ``listed``: the plan's listing (``store.container.listing()``), read
    once for the record and for the comparison of files.
    """
    headers, listing = listed
    if listing is None or not layout.is_plan(headers):
        return None, None
    try:
        return store.reader.history(plan, listed)
    except exceptions.CommandError:
        if log.PATH in listing or any(
                n.startswith(log.LOG_PREFIX) for n in listing):
            raise           # a damaged record is not a missing plan
        return None, None


def read_record(store, plan):
    """``(listed, history)`` as ``prepare`` takes them: from the index
    alone (one request, ``listed`` None) when it holds the whole history,
    the recorded tree and no open stack step; else the listing and
    ``read_history()``."""
    head = store.reader.head(plan, required=False)
    if head is None:
        return None, (None, None)       # no plan: prepare lists if it may
    if head.rows is not None and \
            len(head.rows) >= head.count and head.state['created'] and \
            head.state.get('tree') is not None and \
            open_step.find(head.rows) is None:
        return None, (head.rows, head)
    listed = store.container.listing(plan)
    return listed, read_history(store, plan, listed)


def prepare(services, action, plan, files, remove=(), stage=None,
            with_templates=False, listed=None, history=None):
    """Check and work out one step; writes nothing. Returns ``Prepared``.

    ``files``: plan.files.PlanFiles of what the user named, the whole
    templates tree too when ``with_templates`` (deploy --templates).
    ``remove``: the --remove-environment values (local or plan paths).
    ``listed``, ``history``: the plan's listing and ``read_history()``,
    when the caller read them already.
    """
    store = services.store
    if with_templates:
        templates_mod.check_tree(files)
    if history is None or (listed is None and with_templates and (
            history[1] is None or files.release != history[1].state.get(
                'release'))):
        # A new templates release: its old tree is read from the listing.
        listed = listed or store.container.listing(plan)
        history = history or read_history(store, plan, listed)
    rows, head = history
    stack = _stack(services, plan, rows)
    listing = listed[1] if listed else None
    created = head is not None and head.state['created']
    refused = preconditions.refusal(
        plan, action, stack=stack is not None,
        idle=lambda: open_step.check_idle(store, plan, rows, stack),
        created=created, creates=with_templates, removes=bool(remove))
    if refused is not None:
        raise refused
    if not created:
        return Prepared(action, plan, files, remove, stack, rows, head, None,
                        with_templates=True)
    state = head.state
    view = store.container.view(plan, state.get('tree'))
    remove = steps.resolve_removals(files, state['environments'], remove)
    deleted = ()
    if with_templates:
        templates_mod.check_environments(
            plan, [e for e in state['environments'] if e not in remove],
            files, state)
        deleted = _sync_tree(store, plan, files, state, view, listing)
    # In the templates the step leaves the plan with.
    lifecycle = preconditions.lifecycle_environment(
        action, stage, lambda path: path in (
            files.objects if with_templates else listing
            if listing is not None else view.full()))
    refused = preconditions.refusal(plan, action, stage=stage,
                                    held=lifecycle is not None)
    if refused is not None:
        raise refused
    resent, unread = sources.reread(state, files)
    # Compared with what Swift holds: a file a failed step left there is
    # sent again when the local one differs.
    change = steps.Change(state, files, remove, listing, view, deleted)
    if listing is None and not change.empty:
        # Something to write: decided against what Swift holds, so that a
        # file a failed step left there is sent again when the local one
        # differs. Nothing to write is known from the record alone.
        listing = store.container.listing(plan)[1]
        change = steps.Change(state, files, remove, listing, view, deleted)
    if with_templates and files.release != state.get('release'):
        change.release = files.release
    return Prepared(action, plan, files, remove, stack, rows, head, change,
                    lifecycle, with_templates, listing, resent, unread,
                    stage)


def _sync_tree(store, plan, files, state, view, listing):
    """Make ``files`` (the whole new templates tree) the plan's next tree:
    the stored plan-environment.yaml stays (it holds the generated
    passwords), with a value added for each password the new release needs
    and the old did not. Returns the paths of the old tree to delete."""
    from tripleoplanclient.common import content
    from tripleoplanclient.plan import passwords
    from tripleoplanclient.plan import tree as tree_mod

    files.objects.pop(layout.PLAN_ENVIRONMENT, None)
    if files.release == state.get('release'):
        return []       # the same tree: nothing to add, nothing to delete
    stored = view.full() if view.known else tree_mod.of_listing(listing)
    rendered = {}
    if layout.RENDER_MANIFEST in listing:
        rendered = content.load_yaml(
            store.container.get(plan, layout.RENDER_MANIFEST) or b'{}',
            'plan %s %s' % (plan, layout.RENDER_MANIFEST)) or {}
    deleted = templates_mod.removed(
        stored, files, state, (rendered.get('outputs') or {})
        if isinstance(rendered, dict) else {})
    env = store.container.get(plan, layout.PLAN_ENVIRONMENT) \
        if layout.PLAN_ENVIRONMENT in stored else None
    have = passwords.stored(env)
    new = [n for n in passwords.needed(files.objects) if n not in have]
    if new:
        files.objects[layout.PLAN_ENVIRONMENT] = passwords.plan_environment(
            env, passwords.generate(new), plan=plan)
    return deleted


def describe(prepared, renders_on_create=True):
    """What the step would do to the plan, for --dry-run: against the
    plan's last step (environments added and removed, objects added,
    changed and removed, user files changed, the templates release)."""
    change, files = prepared.change, prepared.files
    out = {
        'operation': 'UPDATE' if prepared.stack is not None else 'CREATE',
        'plan_created': prepared.creates_plan,
    }
    if change is None:
        out.update(objects_added=sorted(files.objects), objects_changed=[],
                   objects_removed=[], environments=list(files.environments),
                   environments_added=list(files.environments),
                   environments_removed=[], files_changed=[],
                   templates=templates_mod.name(files.release),
                   renders=renders_on_create)
        return out
    state = prepared.head.state
    before, after = state['environments'], change.environments
    out.update(objects_added=change.added, objects_changed=change.changed,
               objects_removed=change.deleted,
               environments=layout.stack_environments(
                   after, prepared.lifecycle),
               environments_added=[e for e in after if e not in before],
               environments_removed=[e for e in before if e not in after],
               files_changed=[p for p in change.changed
                              if p in state['files']],
               templates=templates_mod.name(
                   change.release or state.get('release')),
               renders=change.renders)
    return out


def preview(services, options, prepared):
    """Heat's answer to the step: the preview action assembles the stack's
    fields from the plan with the step's changes on top (sent, never
    written), renders in memory when the step would render, and asks
    Heat's preview (create) or preview-update. None when the plan does not
    exist yet: Mistral has nothing to assemble it from."""
    change = prepared.change
    if change is None:
        return None
    from tripleoplanclient.workflows import plans

    inputs = change.render_inputs
    request = plans.preview_request(
        prepared.plan, services.swift_url, services.heat_url,
        change.objects(), environments=layout.stack_environments(
            change.environments, prepared.lifecycle),
        plan_environment=inputs.get('plan_environment'),
        tree=prepared.head.state.get('tree'),
        unchanged=None if options.force or prepared.lifecycle else
        log.last_stack(prepared.rows or []),
        timeout=int(max(1, round(options.timeout))),
        deleted=change.deleted,
        render={'roles_data': inputs.get('roles_data'),
                'network_data': inputs.get('network_data')}
        if change.renders else None)
    return services.workflows.preview(request, _PREVIEW_WAIT)
