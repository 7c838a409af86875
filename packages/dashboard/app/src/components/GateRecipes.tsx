import { useState } from 'preact/hooks';
import {
  CI_RECIPES,
  type CiRecipe,
  githubActionsWorkflow,
  gitlabCiJob,
  recipeOf,
  shellRecipe,
} from '../ci-recipes.js';
import { isLoopbackUrl } from '../format.js';
import { CodeBlock } from './ui.js';

/** The recipes grouped by language, in the order of {@link CI_RECIPES}. */
function byLanguage(): [string, CiRecipe[]][] {
  const groups = new Map<string, CiRecipe[]>();
  for (const recipe of CI_RECIPES) {
    groups.set(recipe.language, [...(groups.get(recipe.language) ?? []), recipe]);
  }
  return [...groups];
}

/**
 * Asks which coverage tool the tests use, then shows the command that runs them, writes the
 * tool's report and gates it: in a shell, as a GitHub Actions workflow and as a GitLab CI job.
 * Nothing is shown before a tool is picked: a command for the wrong tool finds no report.
 */
export function GateRecipes(props: { apiUrl: string; repo: string; secret: string }) {
  const [picked, setPicked] = useState<string | null>(null);
  const recipe = picked === null ? undefined : recipeOf(picked);
  const ci = { apiUrl: props.apiUrl, repo: props.repo };
  return (
    <>
      <fieldset class="tool-picker">
        <legend>Which coverage tool do your tests use?</legend>
        {byLanguage().map(([language, recipes]) => (
          <div class="tool-group" key={language}>
            <span class="tool-language">{language}</span>
            {recipes.map((option) => (
              <label class="tool-option" key={option.id}>
                <input
                  type="radio"
                  name="coverage-tool"
                  value={option.id}
                  checked={picked === option.id}
                  onChange={() => setPicked(option.id)}
                />
                {option.label}
              </label>
            ))}
          </div>
        ))}
      </fieldset>
      {recipe === undefined ? (
        <p class="state notice" data-testid="pick-a-tool">
          Pick the tool your tests use: the command runs it, so that it writes the coverage report
          covgate reads.
        </p>
      ) : (
        <div class="gate-recipe" data-testid="gate-recipe">
          {recipe.once ? (
            <>
              <p>Once, {recipe.once.says}:</p>
              <CodeBlock code={recipe.once.code} label="one-time setup" />
            </>
          ) : null}
          <h3>In a shell</h3>
          <p>
            From a checkout of {props.repo}: runs the tests with {recipe.label}, which writes{' '}
            <code>{recipe.report}</code>, and gates it.
          </p>
          <CodeBlock code={shellRecipe(recipe, props)} label="covgate run command" />
          <h3>In GitHub Actions</h3>
          <p>
            As <code>.github/workflows/coverage.yml</code>, with the token stored as the repository
            secret <code>COVGATE_TOKEN</code>. It checks out the whole history, with{' '}
            <code class="nowrap">fetch-depth: 0</code>, as a pull request's patch coverage needs its
            merge base.
          </p>
          {isLoopbackUrl(props.apiUrl) ? (
            <div class="state warning-box" role="note" data-testid="loopback-warning">
              <p>
                <strong>A CI runner cannot reach {props.apiUrl}:</strong> it is a loopback address,
                so the runner would call itself, not this server. Start the server with{' '}
                <code>PUBLIC_URL</code> set to an address your CI reaches (for example{' '}
                <code>https://covgate.example.com</code>), or change <code>COVGATE_URL</code> in the
                jobs below.
              </p>
            </div>
          ) : null}
          <CodeBlock code={githubActionsWorkflow(recipe, ci)} label="GitHub Actions workflow" />
          <h3>In GitLab CI</h3>
          <p>
            As a job of <code>.gitlab-ci.yml</code>, with the token stored as the masked CI/CD
            variable <code>COVGATE_TOKEN</code>.
          </p>
          <CodeBlock code={gitlabCiJob(recipe, ci)} label="GitLab CI job" />
        </div>
      )}
    </>
  );
}
