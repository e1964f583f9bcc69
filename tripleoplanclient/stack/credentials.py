"""The overcloud's admin rc file (``openstack overcloud credentials``):
built from the plan's stack outputs and the plan's AdminPassword, written
readable by its owner only.

Read on the client side: the password is in the plan's container, which
the caller reads anyway (``overcloud plan export`` gives it); going
through Mistral would only carry it through its RPC messages and its
executor. Nothing here prints or logs the password.
"""

import os
import shlex
import urllib.parse

from tripleoplanclient.common import exceptions

# tripleoclient's rc: the admin user of the Default domain, Keystone v3
USER = 'admin'
DOMAIN = 'Default'
DEFAULT_REGION = 'regionOne'
# Stack outputs this reads (THT 17/18 overcloud.j2.yaml)
AUTH_URL = 'KeystoneURL'
REGION = 'KeystoneRegion'
ENDPOINT_MAP = 'EndpointMap'
ADMIN_VIP = 'KeystoneAdminVip'
# larger than any real address or URL; a bigger output is refused
MAX_VALUE = 2048
# Unset whatever OS_ variables the shell had first (another cloud's).
CLEAR = ('for key in $(set | awk -F= \'/^OS_/ {print $1}\'); '
         'do unset "$key"; done\n')


def rc_values(stack, outputs, password, no_proxy=()):
    """``{variable: value}`` of the rc file of stack ``stack`` from its
    ``outputs`` ({key: value}) and the admin ``password``. CommandError
    naming what is missing: no such outputs, no password."""
    auth_url = outputs.get(AUTH_URL)
    if not isinstance(auth_url, str) or not auth_url.strip() or len(
            auth_url) > MAX_VALUE:
        raise exceptions.CommandError(
            'Stack %s has no %s output (the overcloud Keystone\'s URL): '
            'its templates do not give one (tripleo-heat-templates\' '
            'overcloud.yaml does), or the deploy has not finished. Nothing '
            'was written.' % (stack, AUTH_URL))
    if not isinstance(password, str) or not password:
        raise exceptions.CommandError(
            'Plan %s has no AdminPassword (passwords or parameter_defaults '
            'of plan-environment.yaml): set it with "openstack overcloud '
            'plan parameters set" or deploy the plan again. Nothing was '
            'written.' % stack)
    region = outputs.get(REGION)
    if not isinstance(region, str) or not region or len(region) > 255:
        region = DEFAULT_REGION
    hosts = list(no_proxy) + [urllib.parse.urlparse(auth_url).hostname,
                              _admin_host(outputs)]
    return {
        'OS_CLOUD': stack,
        'OS_AUTH_TYPE': 'password',
        'OS_AUTH_URL': auth_url.strip().replace('/v2.0', ''),
        'OS_IDENTITY_API_VERSION': '3',
        'OS_USERNAME': USER,
        'OS_PROJECT_NAME': USER,
        'OS_USER_DOMAIN_NAME': DOMAIN,
        'OS_PROJECT_DOMAIN_NAME': DOMAIN,
        'OS_REGION_NAME': region,
        'OS_PASSWORD': password,
        'OS_NO_CACHE': 'True',
        'no_proxy': ','.join(sorted({_bracketed(h) for h in hosts if h})),
    }


def _admin_host(outputs):
    """Keystone's admin address: EndpointMap's KeystoneAdmin host, else the
    KeystoneAdminVip output (older templates)."""
    found = outputs.get(ENDPOINT_MAP)
    admin = found.get('KeystoneAdmin') if isinstance(found, dict) else None
    host = admin.get('host') if isinstance(admin, dict) else None
    if not isinstance(host, str):
        host = outputs.get(ADMIN_VIP)
    return host if isinstance(host, str) and len(host) <= 255 else None


def _bracketed(host):
    return '[%s]' % host if ':' in host and not host.startswith('[') \
        else host


def rc_text(values):
    """The rc file: old OS_ variables unset, then one quoted export each."""
    return CLEAR + ''.join('export %s=%s\n' % (k, shlex.quote(v))
                           for k, v in values.items())


def write(path, text):
    """Write ``text`` at ``path`` with mode 0600 from its first byte: a
    new file beside it, created so, then renamed over any old one (whose
    mode may be wider)."""
    folder = os.path.dirname(os.path.abspath(path))
    partial = os.path.join(folder, '.%s.%d.new' % (os.path.basename(path),
                                                   os.getpid()))
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise exceptions.CommandError(
            'Cannot write into %s (%s): give a directory you can write to '
            'with --directory. Nothing was written.' % (folder, exc.strerror))
    try:
        with os.fdopen(fd, 'w') as out:
            out.write(text)
        os.replace(partial, path)
    except OSError as exc:
        raise exceptions.CommandError(
            'Cannot write %s (%s). Nothing was written.' % (
                path, exc.strerror))
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def outputs(heat, stack):
    """``{key: value}`` of the stack outputs the rc needs: the stack, its
    outputs' list, then each one needed that is there (not every output
    of a large stack). CommandError when there is no such stack."""
    from heatclient import exc as heat_exc
    try:
        found = heat.stacks.get(stack, resolve_outputs=False)
    except heat_exc.HTTPNotFound:
        raise exceptions.CommandError(
            'No stack %s in Heat: deploy the plan first ("openstack '
            'overcloud deploy --stack %s"). Nothing was written.'
            % (stack, stack))
    ident = '%s/%s' % (found.stack_name, found.id)
    listed = heat.stacks.output_list(ident).get('outputs') or []
    wanted = {AUTH_URL, REGION, ENDPOINT_MAP, ADMIN_VIP}
    values = {}
    for key in sorted(wanted & {o.get('output_key') for o in listed}):
        output = heat.stacks.output_show(ident, key).get('output') or {}
        if not output.get('output_error'):
            values[key] = output.get('output_value')
    return values


def overcloudrc(heat, container, stack, directory):
    """Write ``<directory>/<stack>rc``; its path and what it points at."""
    from tripleoplanclient.plan import layout
    from tripleoplanclient.plan import passwords
    folder = os.path.abspath(directory)
    if not os.path.isdir(folder):
        raise exceptions.CommandError(
            '--directory %s is not a directory. Nothing was written.'
            % directory)
    values = rc_values(stack, outputs(heat, stack), passwords.value(
        container.get(stack, layout.PLAN_ENVIRONMENT), 'AdminPassword'))
    path = os.path.join(folder, '%src' % stack)
    write(path, rc_text(values))
    return {'plan': stack, 'file': path, 'auth_url': values['OS_AUTH_URL'],
            'region': values['OS_REGION_NAME']}
