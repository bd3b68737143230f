import { getTemplate, type WidgetProps } from "@rjsf/utils";

/**
 * rjsf DateTimeWidget (`format: "date-time"`): a text input taking ISO 8601 as typed, e.g.
 * 2024-05-01T12:00:00Z. rjsf's own `datetime-local` input would drop the zone and rewrite the value
 * in the browser's local time; the args must carry exactly what the operator typed.
 */
export function DateTimeWidget(props: WidgetProps) {
  const BaseInputTemplate = getTemplate("BaseInputTemplate", props.registry, props.options);
  return <BaseInputTemplate {...props} type="text" placeholder={props.placeholder || "2024-05-01T12:00:00Z"} />;
}
