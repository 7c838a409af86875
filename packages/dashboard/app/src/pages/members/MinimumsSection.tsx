import type { OrganisationSettings, OrganisationSettingsInput } from '@covgate/client';
import { useState } from 'preact/hooks';
import { Form, TextField } from '../../components/Form.js';
import type { Load } from '../../hooks.js';

/** A percentage as typed: empty (no minimum), or 0 to 100 with at most two decimals. */
const PERCENT_PATTERN = '(100(\\.0{1,2})?|[0-9]{1,2}(\\.[0-9]{1,2})?)';

/**
 * The organisation's minimums: the lowest patch and project targets every run is judged with,
 * whatever its covgate.yml says. Every member sees them; owners change them.
 */
export function MinimumsSection(props: {
  settings: Load<OrganisationSettings>;
  owner: boolean;
  busy: boolean;
  onSave: (body: OrganisationSettingsInput) => void;
}) {
  const { settings, owner } = props;
  if (settings.state !== 'ready') return null;
  const value = settings.value;
  return (
    <>
      <p>
        Every run of every repository is judged with at least these targets: a covgate.yml, a flag
        or a repository setting that asks less is raised to them, and the run says so.
      </p>
      <dl class="details" data-testid="minimums">
        <div>
          <dt>Lowest patch target</dt>
          <dd data-testid="min-patch-target">{shown(value.min_patch_target)}</dd>
        </div>
        <div>
          <dt>Lowest project target</dt>
          <dd data-testid="min-project-target">{shown(value.min_project_target)}</dd>
        </div>
      </dl>
      {owner ? (
        <SetMinimums
          key={value.updated_at ?? 'never'}
          settings={value}
          busy={props.busy}
          onSave={props.onSave}
        />
      ) : (
        <p class="hint">Owners set them.</p>
      )}
    </>
  );
}

function shown(target: number | null): string {
  return target === null ? 'none' : `${target.toFixed(2)}%`;
}

/** The owners' form: each box empty for no minimum. */
function SetMinimums(props: {
  settings: OrganisationSettings;
  busy: boolean;
  onSave: (body: OrganisationSettingsInput) => void;
}) {
  const typed = (target: number | null) => (target === null ? '' : String(target));
  const [patch, setPatch] = useState(typed(props.settings.min_patch_target));
  const [project, setProject] = useState(typed(props.settings.min_project_target));
  const parsed = (text: string) => (text.trim() === '' ? null : Number(text.trim()));
  return (
    <Form
      class="inline-form"
      label="Set the minimums"
      onSubmit={() =>
        props.onSave({ min_patch_target: parsed(patch), min_project_target: parsed(project) })
      }
    >
      <TextField
        label="Lowest patch target (%)"
        name="min-patch-target"
        value={patch}
        pattern={PERCENT_PATTERN}
        placeholder="none"
        autoComplete="off"
        aria-describedby="minimums-hint"
        onValue={setPatch}
      />
      <TextField
        label="Lowest project target (%)"
        name="min-project-target"
        value={project}
        pattern={PERCENT_PATTERN}
        placeholder="none"
        autoComplete="off"
        aria-describedby="minimums-hint"
        onValue={setProject}
      />
      <button type="submit" disabled={props.busy}>
        Save minimums
      </button>
      <p class="hint form-hint" id="minimums-hint">
        A percentage from 0 to 100; leave a box empty for no minimum.
      </p>
    </Form>
  );
}
