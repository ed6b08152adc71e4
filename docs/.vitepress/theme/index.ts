/**
 * The default theme without its bundled web fonts: the site uses the system's fonts, so a page
 * loads nothing but its own scripts and styles.
 */
import DefaultTheme from 'vitepress/theme-without-fonts';
import './system-fonts.css';

export default DefaultTheme;
