declare module '*.pl' {
  const text: string;
  export default text;
}
