import type { IconButtonProps, SubmitButtonProps } from "@rjsf/utils";
import { cx } from "@/components/ui/class-names";

const ICON_BUTTON =
  "inline-flex size-7 items-center justify-center rounded-md border border-zinc-300 bg-white text-zinc-600 shadow-xs hover:bg-zinc-50 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:opacity-40";

function Icon({ path }: { path: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" strokeLinejoin="round">
      <path d={path} />
    </svg>
  );
}

/** SVG paths of the array buttons' icons. */
export const ICON_PATHS = {
  up: "M8 13V3M4 7l4-4 4 4",
  down: "M8 3v10M4 9l4 4 4-4",
  remove: "M4 4l8 8M12 4l-8 8",
  copy: "M5.5 5.5h7v7h-7zM3.5 10.5v-7h7",
  add: "M8 3v10M3 8h10",
} as const;

/** A square icon-only button with an accessible name, for array item toolbars. */
export function IconButton({ label, icon, className, ...rest }: { label: string; icon: keyof typeof ICON_PATHS } & React.ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="button" aria-label={label} title={label} className={cx(ICON_BUTTON, icon === "remove" && "hover:border-red-300 hover:text-red-700", className)} {...rest}>
      <Icon path={ICON_PATHS[icon]} />
    </button>
  );
}

function omitRjsfProps({ registry: _registry, uiSchema: _uiSchema, iconType: _iconType, icon: _icon, ...rest }: IconButtonProps) {
  return rest;
}

/**
 * rjsf AddButton: "+ Add item" (arrays) or "+ Add property" (open objects); the template that draws it
 * passes the `aria-label` that names the field it adds to ("Add property to Env").
 */
export function AddButton(props: IconButtonProps) {
  const { className: _className, ...rest } = omitRjsfProps(props);
  const isProperty = props.id?.includes("add") && props.className?.includes("object");
  return (
    <button
      type="button"
      className="inline-flex h-7 items-center gap-1.5 rounded-md border border-dashed border-zinc-300 bg-white px-2.5 text-xs font-medium text-zinc-700 hover:border-zinc-400 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-600 disabled:opacity-40"
      {...rest}
    >
      <Icon path={ICON_PATHS.add} />
      {isProperty ? "Add property" : "Add item"}
    </button>
  );
}

/** rjsf MoveUpButton. */
export function MoveUpButton(props: IconButtonProps) {
  return <IconButton label="Move up" icon="up" {...omitRjsfProps(props)} />;
}

/** rjsf MoveDownButton. */
export function MoveDownButton(props: IconButtonProps) {
  return <IconButton label="Move down" icon="down" {...omitRjsfProps(props)} />;
}

/** rjsf RemoveButton. */
export function RemoveButton(props: IconButtonProps) {
  return <IconButton label="Remove" icon="remove" {...omitRjsfProps(props)} />;
}

/** rjsf CopyButton. */
export function CopyButton(props: IconButtonProps) {
  return <IconButton label="Duplicate" icon="copy" {...omitRjsfProps(props)} />;
}

/** rjsf ClearButton (text inputs with allowClearTextInputs). */
export function ClearButton(props: IconButtonProps) {
  return <IconButton label="Clear" icon="remove" {...omitRjsfProps(props)} />;
}

/** rjsf SubmitButton: hidden — the page's own Run button submits the form (via its `form` attribute). */
export function SubmitButton(_props: SubmitButtonProps) {
  return null;
}
