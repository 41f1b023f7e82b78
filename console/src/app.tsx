// The shell: sign-in when there is no session, else the navigation, banner and the routed page.
import { canWrite, online, session, theme, useStore } from './state';
import { Link, route, segments } from './router';
import { SignIn } from './pages/sign-in';
import { EndpointList } from './pages/endpoints';
import { EndpointForm } from './pages/endpoint-form';
import { EndpointPage } from './pages/endpoint-page';
import { ResourcePage, RESOURCES } from './pages/resources';
import { KeysPage } from './pages/keys';

function Route({ path }: { path: string }) {
  const [section, id, tab] = segments(path);
  if (!section || section === 'endpoints') {
    if (id === 'new') return <EndpointForm />;
    if (id && tab === 'edit') return <EndpointForm id={id} />;
    if (id) return <EndpointPage id={id} tab={tab ?? 'overview'} />;
    return <EndpointList />;
  }
  const resource = RESOURCES.find((r) => r.path === section);
  if (resource) return <ResourcePage key={resource.path} resource={resource} />;
  if (section === 'keys' || section === 'key') return <KeysPage />;
  return (
    <p>
      Nothing here. <Link to="/">Back to endpoints</Link>
    </p>
  );
}

const NAV = [
  { to: '/', label: 'Endpoints', section: 'endpoints' },
  ...RESOURCES.map((r) => ({ to: `/${r.path}`, label: r.title, section: r.path })),
  { to: '/keys', label: 'API keys', section: 'keys' },
];

export function App() {
  const current = useStore(session);
  const path = useStore(route);
  const isOnline = useStore(online);
  const currentTheme = useStore(theme);
  if (!current) return <SignIn />;
  const section = segments(path)[0] ?? 'endpoints';
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link to="/" class="brand">
          Gantry
        </Link>
        <nav aria-label="Main">
          {NAV.map((n) => (
            <Link key={n.to} to={n.to} aria-current={section === n.section ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <div class="who">
          {!canWrite(current) && (
            <span class="badge tone-warn" title="This key may only read">
              read-only
            </span>
          )}
          <span class="key-name">{current.name}</span>
          <button
            type="button"
            class="small"
            aria-label={`Theme: ${currentTheme}. Change theme`}
            onClick={() => theme.set(currentTheme === 'system' ? 'dark' : currentTheme === 'dark' ? 'light' : 'system')}
          >
            {currentTheme === 'dark' ? '☾ Dark' : currentTheme === 'light' ? '☀ Light' : '◐ Auto'}
          </button>
          <button type="button" class="small" onClick={() => session.set(null)}>
            Sign out
          </button>
        </div>
      </header>
      {!isOnline && (
        <div class="banner" role="status">
          Connection to the server lost — retrying…
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <Route path={path} />
      </main>
    </div>
  );
}
