/* planar-capture-options.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture-options.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <string.h>

#include "profiler_service.pb-c.h"

typedef struct
{
  char                   *key;
  PlanarCaptureValueType  type;
  char                   *value;
} Option;

struct _PlanarCaptureOptions
{
  GObject   parent_instance;

  char     *addresses;
  char     *logdir;
  guint     duration_ms;
  guint     host_tracer_level;
  guint     device_tracer_level;
  guint     python_tracer_level;
  guint     retries;
  guint     busy_wait_ms;
  int       delay_ms;
  guint     deadline_floor_ms;
  gboolean  raise_error_on_start_failure;
  GArray   *options;
};

G_DEFINE_FINAL_TYPE (PlanarCaptureOptions, planar_capture_options, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ADDRESSES,
  PROP_LOGDIR,
  PROP_DURATION_MS,
  PROP_HOST_TRACER_LEVEL,
  PROP_DEVICE_TRACER_LEVEL,
  PROP_PYTHON_TRACER_LEVEL,
  PROP_RETRIES,
  PROP_BUSY_WAIT_MS,
  PROP_DELAY_MS,
  PROP_DEADLINE_FLOOR_MS,
  PROP_RAISE_ERROR_ON_START_FAILURE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
option_clear (Option *option)
{
  g_free (option->key);
  g_free (option->value);
}

static void
planar_capture_options_finalize (GObject *object)
{
  PlanarCaptureOptions *self = PLANAR_CAPTURE_OPTIONS (object);

  g_free (self->addresses);
  g_free (self->logdir);
  g_array_unref (self->options);
  G_OBJECT_CLASS (planar_capture_options_parent_class)->finalize (object);
}

static guint *
uint_field (PlanarCaptureOptions *self,
            guint                 prop_id)
{
  switch (prop_id)
    {
    case PROP_DURATION_MS: return &self->duration_ms;
    case PROP_HOST_TRACER_LEVEL: return &self->host_tracer_level;
    case PROP_DEVICE_TRACER_LEVEL: return &self->device_tracer_level;
    case PROP_PYTHON_TRACER_LEVEL: return &self->python_tracer_level;
    case PROP_RETRIES: return &self->retries;
    case PROP_BUSY_WAIT_MS: return &self->busy_wait_ms;
    case PROP_DEADLINE_FLOOR_MS: return &self->deadline_floor_ms;
    default: return NULL;
    }
}

static void
planar_capture_options_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  PlanarCaptureOptions *self = PLANAR_CAPTURE_OPTIONS (object);
  guint *field = uint_field (self, prop_id);

  if (field != NULL)
    g_value_set_uint (value, *field);
  else if (prop_id == PROP_ADDRESSES)
    g_value_set_string (value, self->addresses);
  else if (prop_id == PROP_LOGDIR)
    g_value_set_string (value, self->logdir);
  else if (prop_id == PROP_DELAY_MS)
    g_value_set_int (value, self->delay_ms);
  else if (prop_id == PROP_RAISE_ERROR_ON_START_FAILURE)
    g_value_set_boolean (value, self->raise_error_on_start_failure);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
planar_capture_options_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  PlanarCaptureOptions *self = PLANAR_CAPTURE_OPTIONS (object);
  guint *field = uint_field (self, prop_id);

  if (field != NULL)
    {
      if (*field == g_value_get_uint (value))
        return;
      *field = g_value_get_uint (value);
    }
  else if (prop_id == PROP_ADDRESSES || prop_id == PROP_LOGDIR)
    {
      char **text = prop_id == PROP_ADDRESSES ? &self->addresses : &self->logdir;

      if (g_strcmp0 (*text, g_value_get_string (value)) == 0)
        return;
      g_free (*text);
      *text = g_strdup (g_value_get_string (value) ? g_value_get_string (value) : "");
    }
  else if (prop_id == PROP_DELAY_MS)
    {
      if (self->delay_ms == g_value_get_int (value))
        return;
      self->delay_ms = g_value_get_int (value);
    }
  else if (prop_id == PROP_RAISE_ERROR_ON_START_FAILURE)
    {
      if (self->raise_error_on_start_failure == g_value_get_boolean (value))
        return;
      self->raise_error_on_start_failure = g_value_get_boolean (value);
    }
  else
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_object_notify_by_pspec (object, pspec);
}

static void
planar_capture_options_class_init (PlanarCaptureOptionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = planar_capture_options_finalize;
  object_class->get_property = planar_capture_options_get_property;
  object_class->set_property = planar_capture_options_set_property;

  properties[PROP_ADDRESSES] = g_param_spec_string ("addresses", NULL, NULL, "", flags);
  properties[PROP_LOGDIR] = g_param_spec_string ("logdir", NULL, NULL, "", flags);
  properties[PROP_DURATION_MS] = g_param_spec_uint ("duration-ms", NULL, NULL, 0, 3600000, 1000, flags);
  properties[PROP_HOST_TRACER_LEVEL] = g_param_spec_uint ("host-tracer-level", NULL, NULL, 0, 3, 2, flags);
  properties[PROP_DEVICE_TRACER_LEVEL] = g_param_spec_uint ("device-tracer-level", NULL, NULL, 0, 1, 1, flags);
  properties[PROP_PYTHON_TRACER_LEVEL] = g_param_spec_uint ("python-tracer-level", NULL, NULL, 0, 1, 0, flags);
  properties[PROP_RETRIES] = g_param_spec_uint ("retries", NULL, NULL, 0, 100, 3, flags);
  properties[PROP_BUSY_WAIT_MS] = g_param_spec_uint ("busy-wait-ms", NULL, NULL, 0, 3600000,
                                                     PLANAR_CAPTURE_BUSY_WAIT_MS_DEFAULT, flags);
  properties[PROP_DELAY_MS] = g_param_spec_int ("delay-ms", NULL, NULL, -1, 600000, -1, flags);
  properties[PROP_DEADLINE_FLOOR_MS] = g_param_spec_uint ("deadline-floor-ms", NULL, NULL, 1, 86400000, 60000, flags);
  properties[PROP_RAISE_ERROR_ON_START_FAILURE] = g_param_spec_boolean ("raise-error-on-start-failure", NULL, NULL,
                                                                        FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
planar_capture_options_init (PlanarCaptureOptions *self)
{
  self->addresses = g_strdup ("");
  self->logdir = g_strdup ("");
  self->duration_ms = 1000;
  self->host_tracer_level = 2;
  self->device_tracer_level = 1;
  self->python_tracer_level = 0;
  self->retries = 3;
  self->busy_wait_ms = PLANAR_CAPTURE_BUSY_WAIT_MS_DEFAULT;
  self->delay_ms = -1;
  self->deadline_floor_ms = 60000;
  self->options = g_array_new (FALSE, TRUE, sizeof (Option));
  g_array_set_clear_func (self->options, (GDestroyNotify) option_clear);
}

PlanarCaptureOptions *
planar_capture_options_new (void)
{
  return g_object_new (PLANAR_TYPE_CAPTURE_OPTIONS, NULL);
}

void
planar_capture_options_set_option (PlanarCaptureOptions   *self,
                                   const char             *key,
                                   PlanarCaptureValueType  type,
                                   const char             *value)
{
  Option option;

  g_return_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self));
  g_return_if_fail (key != NULL && value != NULL);

  for (guint i = 0; i < self->options->len; i++)
    {
      Option *o = &g_array_index (self->options, Option, i);

      if (strcmp (o->key, key) == 0)
        {
          g_free (o->value);
          o->value = g_strdup (value);
          o->type = type;
          return;
        }
    }
  option.key = g_strdup (key);
  option.type = type;
  option.value = g_strdup (value);
  g_array_append_val (self->options, option);
}

gboolean
planar_capture_options_remove_option (PlanarCaptureOptions *self,
                                      const char           *key)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), FALSE);

  for (guint i = 0; i < self->options->len; i++)
    if (strcmp (g_array_index (self->options, Option, i).key, key) == 0)
      {
        g_array_remove_index (self->options, i);
        return TRUE;
      }
  return FALSE;
}

void
planar_capture_options_clear_options (PlanarCaptureOptions *self)
{
  g_return_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self));
  g_array_set_size (self->options, 0);
}

guint
planar_capture_options_get_n_options (PlanarCaptureOptions *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), 0);
  return self->options->len;
}

void
planar_capture_options_get_option (PlanarCaptureOptions    *self,
                                   guint                    index,
                                   const char             **key,
                                   PlanarCaptureValueType  *type,
                                   const char             **value)
{
  const Option *o;

  g_return_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self));
  g_return_if_fail (index < self->options->len);

  o = &g_array_index (self->options, Option, index);
  if (key != NULL)
    *key = o->key;
  if (type != NULL)
    *type = o->type;
  if (value != NULL)
    *value = o->value;
}

static gboolean
parse_int64 (const char *text,
             gint64     *out)
{
  char *end = NULL;

  if (text[0] == '\0')
    return FALSE;
  errno = 0;
  *out = g_ascii_strtoll (text, &end, 10);
  return errno == 0 && end != NULL && *end == '\0';
}

static gboolean
parse_bool (const char *text,
            gboolean   *out)
{
  if (g_ascii_strcasecmp (text, "true") == 0 || strcmp (text, "1") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (text, "false") == 0 || strcmp (text, "0") == 0)
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
check_value (const char              *key,
             PlanarCaptureValueType   type,
             const char              *value,
             GError                 **error)
{
  gint64 i;
  gboolean b;

  if (type == PLANAR_CAPTURE_VALUE_INT64 && !parse_int64 (value, &i))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Option %s: “%s” is not an integer"), key, value);
      return FALSE;
    }
  if (type == PLANAR_CAPTURE_VALUE_BOOL && !parse_bool (value, &b))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Option %s: “%s” is not true or false"), key, value);
      return FALSE;
    }
  return TRUE;
}

gboolean
planar_capture_options_parse_option (PlanarCaptureOptions  *self,
                                     const char            *text,
                                     GError               **error)
{
  const char *equals = strchr (text, '=');
  g_autofree char *key = NULL;
  const char *value;
  char *colon;
  PlanarCaptureValueType type;
  gint64 i;
  gboolean b;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), FALSE);

  if (equals == NULL || equals == text)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Option “%s” is not KEY=VALUE"), text);
      return FALSE;
    }
  key = g_strndup (text, (gsize) (equals - text));
  value = equals + 1;
  colon = strchr (key, ':');
  if (colon != NULL)
    {
      *colon = '\0';
      if (strcmp (colon + 1, "string") == 0 || strcmp (colon + 1, "str") == 0)
        type = PLANAR_CAPTURE_VALUE_STRING;
      else if (strcmp (colon + 1, "bool") == 0)
        type = PLANAR_CAPTURE_VALUE_BOOL;
      else if (strcmp (colon + 1, "int") == 0 || strcmp (colon + 1, "int64") == 0)
        type = PLANAR_CAPTURE_VALUE_INT64;
      else
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("Option %s: unknown type “%s” (use string, bool or int)"), key, colon + 1);
          return FALSE;
        }
    }
  else if (g_ascii_strcasecmp (value, "true") == 0 || g_ascii_strcasecmp (value, "false") == 0)
    type = PLANAR_CAPTURE_VALUE_BOOL;
  else if (parse_int64 (value, &i))
    type = PLANAR_CAPTURE_VALUE_INT64;
  else
    type = PLANAR_CAPTURE_VALUE_STRING;
  if (key[0] == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Option “%s” has no key"), text);
      return FALSE;
    }
  if (!check_value (key, type, value, error))
    return FALSE;
  (void) b;
  planar_capture_options_set_option (self, key, type, value);
  return TRUE;
}

/* "host:port" from "grpc://host:port " and the like; NULL when it is not
 * an address. IPv6 hosts are written in brackets. */
static char *
normalize_address (const char  *text,
                   GError     **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  const char *address = copy;
  const char *colon;
  gint64 port;

  if (g_str_has_prefix (address, "grpc://"))
    address += strlen ("grpc://");
  colon = strrchr (address, ':');
  if (colon == NULL || colon == address || (address[0] == '[' && colon[-1] != ']'))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not host:port"), text);
      return NULL;
    }
  if (!parse_int64 (colon + 1, &port) || port < 1 || port > 65535)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s”: the port must be a number from 1 to 65535"),
                   text);
      return NULL;
    }
  for (const char *p = address; p < colon; p++)
    if (g_ascii_isspace (*p) || *p == '/' || *p == ',')
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not host:port"), text);
        return NULL;
      }
  return g_strdup (address);
}

GStrv
planar_capture_options_dup_addresses (PlanarCaptureOptions  *self,
                                      GError               **error)
{
  g_auto(GStrv) parts = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), NULL);

  parts = g_strsplit (self->addresses, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *address = NULL;

      if (g_strstrip (parts[i])[0] == '\0')
        continue;
      address = normalize_address (parts[i], error);
      if (address == NULL)
        return NULL;
      if (g_ptr_array_find_with_equal_func (seen, address, g_str_equal, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("%s is listed twice"), address);
          return NULL;
        }
      g_strv_builder_add (builder, address);
      g_ptr_array_add (seen, g_steal_pointer (&address));
    }
  if (seen->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Give the address of a profiler server (host:port)"));
      return NULL;
    }
  return g_strv_builder_end (builder);
}

gboolean
planar_capture_options_validate (PlanarCaptureOptions  *self,
                                 GError               **error)
{
  g_auto(GStrv) addresses = NULL;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), FALSE);

  addresses = planar_capture_options_dup_addresses (self, error);
  if (addresses == NULL)
    return FALSE;
  if (self->logdir[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose the log directory"));
      return FALSE;
    }
  if (self->duration_ms == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The duration must be at least 1 ms"));
      return FALSE;
    }
  for (guint i = 0; i < self->options->len; i++)
    {
      const Option *o = &g_array_index (self->options, Option, i);

      if (o->key[0] == '\0')
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("An advanced option has no key"));
          return FALSE;
        }
      if (!check_value (o->key, o->type, o->value, error))
        return FALSE;
    }
  return TRUE;
}

char *
planar_capture_options_dup_warning (PlanarCaptureOptions *self)
{
  g_autoptr(GString) others = g_string_new (NULL);
  gboolean has_gpu_key = FALSE;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), NULL);

  for (guint i = 0; i < self->options->len; i++)
    {
      const Option *o = &g_array_index (self->options, Option, i);

      /* override_hostnames is the client's own; the rest reach every
       * tracer. */
      if (g_str_has_prefix (o->key, "gpu_"))
        has_gpu_key = TRUE;
      else if (strcmp (o->key, "override_hostnames") != 0)
        g_string_append_printf (others, "%s%s", others->len > 0 ? ", " : "", o->key);
    }
  if (others->len == 0 || self->device_tracer_level == 0)
    return NULL;
  return g_strdup_printf ("A GPU host's tracer refuses every option when one is not a gpu_ option (%s), and then "
                          "records nothing from the GPU without saying so%s. Enable “raise error on start failure” "
                          "to be told.",
                          others->str, has_gpu_key ? ", the gpu_ options included" : "");
}

guint
planar_capture_options_get_effective_delay_ms (PlanarCaptureOptions *self,
                                               guint                 n_addresses)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), 0);

  if (self->delay_ms >= 0)
    return (guint) self->delay_ms;
  /* Several hosts start together a little later, as XLA's client does. */
  return n_addresses > 1 ? 3000 : 0;
}

gint64
planar_capture_options_get_deadline_ms (PlanarCaptureOptions *self,
                                        guint                 n_addresses)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), 0);

  return MAX ((gint64) self->deadline_floor_ms, 2 * (gint64) self->duration_ms)
         + planar_capture_options_get_effective_delay_ms (self, n_addresses);
}

GBytes *
planar_capture_options_build_request (PlanarCaptureOptions *self,
                                      const char           *address,
                                      const char           *repository_root,
                                      const char           *session_id,
                                      guint64               start_ns)
{
  Tensorflow__ProfileRequest request = TENSORFLOW__PROFILE_REQUEST__INIT;
  Tensorflow__ProfileOptions opts = TENSORFLOW__PROFILE_OPTIONS__INIT;
  g_autofree Tensorflow__ProfileOptions__AdvancedConfigurationEntry **entries = NULL;
  g_autofree Tensorflow__ProfileOptions__AdvancedConfigurationEntry *entry_data = NULL;
  g_autofree Tensorflow__ProfileOptions__AdvancedConfigValue *values = NULL;
  char *tools[] = { (char *) "xplane.pb" };
  gsize size;
  guint8 *buffer;
  guint n = self->options->len;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (self), NULL);

  /* version 1: with 0 the server replaces every option by its defaults. */
  opts.version = 1;
  opts.host_tracer_level = self->host_tracer_level;
  opts.device_tracer_level = self->device_tracer_level;
  opts.python_tracer_level = self->python_tracer_level;
  opts.include_dataset_ops = TRUE;
  opts.enable_hlo_proto = TRUE;
  opts.duration_ms = self->duration_ms;
  opts.start_timestamp_ns = start_ns;
  opts.raise_error_on_start_failure = self->raise_error_on_start_failure;
  opts.session_id = (char *) session_id;
  opts.repository_path = (char *) repository_root;

  entries = g_new0 (Tensorflow__ProfileOptions__AdvancedConfigurationEntry *, MAX (n, 1));
  entry_data = g_new0 (Tensorflow__ProfileOptions__AdvancedConfigurationEntry, MAX (n, 1));
  values = g_new0 (Tensorflow__ProfileOptions__AdvancedConfigValue, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const Option *o = &g_array_index (self->options, Option, i);
      Tensorflow__ProfileOptions__AdvancedConfigurationEntry init_entry =
        TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIGURATION_ENTRY__INIT;
      Tensorflow__ProfileOptions__AdvancedConfigValue init_value = TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__INIT;
      gint64 int_value = 0;
      gboolean bool_value = FALSE;

      entry_data[i] = init_entry;
      values[i] = init_value;
      entry_data[i].key = o->key;
      entry_data[i].value = &values[i];
      switch (o->type)
        {
        case PLANAR_CAPTURE_VALUE_BOOL:
          parse_bool (o->value, &bool_value);
          values[i].value_case = TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__VALUE_BOOL_VALUE;
          values[i].bool_value = bool_value;
          break;
        case PLANAR_CAPTURE_VALUE_INT64:
          parse_int64 (o->value, &int_value);
          values[i].value_case = TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__VALUE_INT64_VALUE;
          values[i].int64_value = int_value;
          break;
        case PLANAR_CAPTURE_VALUE_STRING:
        default:
          values[i].value_case = TENSORFLOW__PROFILE_OPTIONS__ADVANCED_CONFIG_VALUE__VALUE_STRING_VALUE;
          values[i].string_value = o->value;
          break;
        }
      entries[i] = &entry_data[i];
    }
  opts.n_advanced_configuration = n;
  opts.advanced_configuration = entries;

  request.duration_ms = self->duration_ms;
  request.max_events = 1000000;
  request.n_tools = G_N_ELEMENTS (tools);
  request.tools = tools;
  request.opts = &opts;
  request.repository_root = (char *) repository_root;
  request.session_id = (char *) session_id;
  request.host_name = (char *) address;
  request.emit_xspace = TRUE;

  size = tensorflow__profile_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__profile_request__pack (&request, buffer);
  return g_bytes_new_take (buffer, size);
}
