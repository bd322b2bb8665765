import { render } from 'preact';
// The global styles first (tokens, resets, the shared controls and layouts): each component's
// own CSS module comes after them.
import './styles/tokens.css';
import './styles/base.css';
import './styles/controls.css';
import './styles/layout.css';
import './styles/print.css';
import { App } from './components/app/app.tsx';

render(<App />, document.getElementById('app')!);
