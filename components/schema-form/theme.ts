import type { FormProps } from "@rjsf/core";
import { ArrayFieldWithItemDefaults } from "./array-field";
import { ArrayFieldItemTemplate, ArrayFieldTemplate } from "./array-field-template";
import { BaseInputTemplate } from "./base-input-template";
import { AddButton, ClearButton, CopyButton, MoveDownButton, MoveUpButton, RemoveButton, SubmitButton } from "./button-templates";
import { CheckboxWidget } from "./checkbox-widget";
import { DateTimeWidget } from "./date-time-widget";
import { FieldTemplate, MultiSchemaFieldTemplate } from "./field-template";
import { ObjectFieldTemplate } from "./object-field-template";
import { SelectWidget } from "./select-widget";
import { DescriptionFieldTemplate, FieldErrorTemplate, FieldHelpTemplate, TitleFieldTemplate } from "./text-templates";
import { TextareaWidget } from "./textarea-widget";
import { WrapIfAdditionalTemplate } from "./wrap-if-additional-template";

/** The console's rjsf templates (Tailwind-styled): fields, unions, objects, arrays, inputs, texts and buttons. */
export const schemaFormTemplates: NonNullable<FormProps["templates"]> = {
  FieldTemplate,
  MultiSchemaFieldTemplate,
  ObjectFieldTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  BaseInputTemplate,
  DescriptionFieldTemplate,
  TitleFieldTemplate,
  FieldErrorTemplate,
  FieldHelpTemplate,
  WrapIfAdditionalTemplate,
  ButtonTemplates: { AddButton, CopyButton, MoveDownButton, MoveUpButton, RemoveButton, ClearButton, SubmitButton },
};

/** The console's rjsf widgets: select for enums, checkbox for booleans, textarea on request, ISO text for date-times. */
export const schemaFormWidgets: NonNullable<FormProps["widgets"]> = {
  SelectWidget,
  CheckboxWidget,
  TextareaWidget,
  DateTimeWidget,
};

/** The console's rjsf fields: arrays whose new items hold their schema's defaults. */
export const schemaFormFields: NonNullable<FormProps["fields"]> = {
  ArrayField: ArrayFieldWithItemDefaults,
};
