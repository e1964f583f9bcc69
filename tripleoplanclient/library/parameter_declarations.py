"""The declarations of every parameter in Heat's validation of a plan with
its nested stacks, collected in one walk of the result (``Declarations``)
into one entry per name, as parameters.schema returns them.

A nested stack's template is found as Heat finds it (heat_environment):
its ``Type`` is a template URL, or a type mapped in the merged
environment's ``resource_registry``. Only the standard library and this
package's own modules.
"""

import json
from urllib import parse

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import parameter_types as types
from tripleoplanclient.plan import heat_environment

# Group resources: where their definition keeps the properties each member
# gets (resource_group.py, resource_chain.py, autoscaling_group.py).
_MEMBER_PROPERTIES = {
    'OS::Heat::ResourceGroup': ('resource_def', 'properties'),
    'OS::Heat::ResourceChain': ('resource_properties',),
    'OS::Heat::AutoScalingGroup': ('resource', 'properties'),
}


def _plain(value):
    """``value`` as JSON has it (a template parsed from YAML may hold
    dates; Heat's answer never does)."""
    return json.loads(json.dumps(value, default=str))


class Declarations:
    """One walk of the validation result, collecting declarations:
    ``walk`` it, then ``results``."""

    def __init__(self, validation, fields, base_url, template):
        environment = validation.get('Environment') or {}
        registry = dict(environment.get('resource_registry') or {})
        self.scope = registry.pop('resources', None) or {}
        self.registry = registry
        # Heat reports parameter_defaults as a parameter's Default
        # (heat/engine/parameters.py:291-295, 520-522): for these names the
        # template's own default is read from the template.
        self.overridden = set(environment.get('parameter_defaults') or {})
        self.base_url = base_url
        self.template = template
        self.texts = {self.path(url): text
                      for url, text in (fields.get('files') or {}).items()}
        self.texts[template] = fields.get('template')
        self.parsed = {}
        self.names = {}
        self.signatures = {}
        self.under = {}         # template path -> top-level resources

    def path(self, url):
        """A template URL as a plan path (unchanged outside the plan)."""
        if url.startswith(self.base_url):
            return parse.unquote(url[len(self.base_url):])
        return url

    def parsed_template(self, path):
        """The template at plan path ``path`` as a mapping, or None."""
        if path not in self.parsed:
            text = self.texts.get(path)
            data = None
            if isinstance(text, dict):
                data = text
            elif isinstance(text, str) and (
                    'heat_template_version' in text or
                    'HeatTemplateFormatVersion' in text or
                    'AWSTemplateFormatVersion' in text):
                # heatclient hands every template it resolved as JSON.
                try:
                    data = json.loads(text)
                except ValueError:
                    try:
                        data = content.load_yaml(text.encode('utf-8'), path,
                                                 quote=False)
                    except exceptions.CommandError:
                        data = None
            self.parsed[path] = data if isinstance(data, dict) else None
        return self.parsed[path]

    def section(self, path, hot, cfn):
        data = self.parsed_template(path) if path is not None else None
        found = data.get(hot, data.get(cfn)) if data else None
        return found if isinstance(found, dict) else {}

    def declared_default(self, path, name):
        schema = self.section(path, 'parameters', 'Parameters').get(name)
        if not isinstance(schema, dict):
            return None
        return _plain(schema.get('default', schema.get('Default')))

    def properties(self, path, resource):
        """The properties template ``path`` gives its ``resource``: a
        mapping, or None when unknown (a function, a generated stack)."""
        definition = self.section(path, 'resources', 'Resources').get(
            resource)
        if not isinstance(definition, dict):
            return None
        found = definition.get('properties', definition.get('Properties'))
        return found if isinstance(found, dict) else None

    def walk(self, validation):
        # (node, its template's plan path or None, top-level resource,
        #  resources section, registry keys removed (the mapping a nested
        #  stack's own template came from is not seen inside it:
        #  environment.py:824-825), names its parent passes, properties of
        #  its generated members or None)
        stack = [(validation, self.template, None, self.scope, frozenset(),
                  None, None)]
        while stack:
            node, path, top, scope, removed, passed, members = stack.pop()
            if path is not None:
                under = self.under.setdefault(path, set())
                if top is not None:
                    under.add(top)
            for name, p in (node.get('Parameters') or {}).items():
                if isinstance(p, dict):
                    self.declare(name, p, path, top, passed)
            nested = node.get('NestedParameters') or {}
            for resource, child in nested.items():
                if not isinstance(child, dict):
                    continue
                url, kind, used = heat_environment.resolve(
                    self.registry, str(child.get('Type') or ''), resource,
                    scope, removed)
                props = (self.properties(path, resource) if path is not None
                         else members)
                child_members = None
                if url is None and isinstance(props, dict):
                    child_members = props
                    for key in _MEMBER_PROPERTIES.get(kind, ()):
                        child_members = (child_members.get(key) if
                                         isinstance(child_members, dict)
                                         else None)
                    if not isinstance(child_members, dict) or \
                            kind not in _MEMBER_PROPERTIES:
                        child_members = None
                child_removed = removed
                if used is not None and len(used) == 1:
                    child_removed = removed | {used[0]}
                stack.append((
                    child, self.path(url) if url else None,
                    top if top is not None else resource,
                    heat_environment.narrow(scope, resource), child_removed,
                    frozenset(props) if isinstance(props, dict) else
                    frozenset(), child_members))

    def declare(self, name, p, path, top, passed):
        key = (path, name)
        found = self.signatures.get(key)
        if found is None:
            hidden = types.is_hidden(p)
            if name in self.overridden:
                default = self.declared_default(path, name)
            else:
                default = _plain(p.get('Default'))
            if hidden and default is not None:
                default = types.MASK
            declaration = {
                'type': p.get('Type', types.STRING), 'default': default,
                'hidden': hidden,
                'constraints': {k: p[k] for k in types.CONSTRAINTS
                                if k in p}}
            signature = json.dumps(declaration, sort_keys=True)
            found = (signature, declaration,
                     str(p.get('Description') or ''))
            if path is not None:
                self.signatures[key] = found
        signature, declaration, description = found
        entry = self.names.get(name)
        if entry is None:
            entry = self.names[name] = {
                'declarations': {}, 'templates': set(), 'resources': set(),
                'top': False, 'fed': True, 'descriptions': {}}
        entry['declarations'].setdefault(signature, [declaration, set()])[
            1].add(path)
        entry['descriptions'].setdefault(path or '', description)
        if path is not None:
            entry['templates'].add(path)
        if top is None:
            entry['top'] = True
            entry['fed'] = False
        else:
            if path is None:
                entry['resources'].add(top)
            # A value the parent gives (a property) beats any
            # parameter_defaults; Heat shows it as Value when it knows it
            # (api.py:526-527), the parent template says it always.
            if 'Value' not in p and name not in passed:
                entry['fed'] = False

    def result(self, name, index):
        """The schema entry of ``name``; ``index``: plan path -> its place
        in the schema's ``templates``."""
        entry = self.names[name]
        root = self.template

        def order(item):
            paths = item[1][1]
            return (root not in paths if entry['top'] else False,
                    min((p or '' for p in paths), default=''))

        def places(paths):
            return sorted(index[p] for p in paths if p is not None)

        ranked = sorted(entry['declarations'].items(), key=order)
        declaration = ranked[0][1][0]
        descriptions = entry['descriptions']
        paths = ranked[0][1][1]
        first = root if entry['top'] and root in paths else min(
            p or '' for p in paths)
        description = descriptions.get(first) or next(
            (descriptions[p] for p in sorted(descriptions)
             if descriptions[p]), '')
        out = {'type': declaration['type'], 'description': description,
               'templates': places(entry['templates'])}
        # Only what is there: False, None and empty are left out.
        if declaration['default'] is not None:
            out['default'] = declaration['default']
        if any(d['hidden'] for d, _ in entry['declarations'].values()):
            out['hidden'] = True
        if entry['top']:
            out['top'] = True
        if entry['fed']:
            out['fed'] = True
        if entry['resources']:
            out['resources'] = sorted(entry['resources'])
        if declaration['constraints']:
            out['constraints'] = declaration['constraints']
        variants = []
        for _, (other, paths) in ranked[1:]:
            variant = {'templates': places(paths), 'type': other['type']}
            if other['default'] is not None:
                variant['default'] = other['default']
            if other['constraints']:
                variant['constraints'] = other['constraints']
            variants.append(variant)
        if variants:
            out['variants'] = variants
        return out

    def results(self):
        paths = sorted({p for entry in self.names.values()
                        for p in entry['templates']})
        index = {p: i for i, p in enumerate(paths)}
        return ([{'path': p, 'resources': sorted(self.under.get(p, ()))}
                 for p in paths],
                {name: self.result(name, index) for name in self.names})
